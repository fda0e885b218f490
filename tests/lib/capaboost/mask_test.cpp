#include "capaboost/mask.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace capaboost;

namespace {
MaskOptions diff(double density, uint64_t seed = 7) {
  return MaskOptions().kind(MaskKind::kDiff).density(density).seed(seed);
}
}  // namespace

TEST_CASE("masks keep exactly round(numel * density) entries", "[mask]") {
  for (double density : {0.1, 0.25, 0.5, 0.7, 0.9, 1.0}) {
    for (auto shape : {std::vector<int64_t>{8, 768}, {768, 8}, {7, 13}}) {
      auto mask = make_mask(diff(density), {"site", "A", 0, 0}, shape);
      CHECK(mask.dtype() == torch::kBool);
      CHECK(mask.sizes().vec() == shape);
      CHECK(mask.sum().item<int64_t>() == std::llround(shape[0] * shape[1] * density));
    }
  }
}

TEST_CASE("N:M masks keep exactly N in every group of M consecutive inputs", "[mask]") {
  for (auto [n, m] : {std::pair<int64_t, int64_t>{2, 4}, {1, 4}, {4, 8}, {3, 4}}) {
    auto options = MaskOptions().kind(MaskKind::kNM).n(n).m(m).seed(3);
    auto mask = make_mask(options, {"s", "B", 1, 0}, {96, 32});
    auto per_group = mask.reshape({96, 32 / m, m}).sum(-1);
    CHECK(per_group.eq(n).all().item<bool>());
    CHECK(kept_count(options, 96 * 32) == 96 * 32 / m * n);
    // The kept positions vary between groups (a random N-subset, not a fixed pattern).
    auto groups = mask.reshape({-1, m}).to(torch::kInt);
    CHECK_FALSE((groups - groups[0]).abs().sum().item<int64_t>() == 0);
  }
  CHECK_THROWS_WITH(make_mask(MaskOptions().kind(MaskKind::kNM), {"site.x", "A", 0, 0}, {8, 30}),
                    Catch::Contains("multiple of 4") && Catch::Contains("site.x"));
}

TEST_CASE("diff masks differ across branches, same masks do not", "[mask]") {
  auto a0 = make_mask(diff(0.5), {"s", "A", 0, 0}, {64, 64});
  auto a1 = make_mask(diff(0.5), {"s", "A", 1, 0}, {64, 64});
  CHECK_FALSE(torch::equal(a0, a1));
  auto same = MaskOptions().kind(MaskKind::kSame).density(0.5).seed(7);
  CHECK(
      torch::equal(make_mask(same, {"s", "A", 0, 0}, {64, 64}), make_mask(same, {"s", "A", 3, 0}, {64, 64})));
  // Factors and sites get their own masks.
  CHECK_FALSE(torch::equal(a0, make_mask(diff(0.5), {"s", "B", 0, 0}, {64, 64})));
  CHECK_FALSE(torch::equal(a0, make_mask(diff(0.5), {"t", "A", 0, 0}, {64, 64})));
  CHECK_FALSE(torch::equal(a0, make_mask(diff(0.5, 8), {"s", "A", 0, 0}, {64, 64})));
}

TEST_CASE("masks are a pure function of seed, site, factor and branch", "[mask]") {
  MaskKey key{"encoder.layer.3.attention.self.query", "A", 1, 0};
  auto first = make_mask(diff(0.5), key, {32, 768});
  torch::manual_seed(12345);  // the global generator must not matter
  torch::rand({100});
  CHECK(torch::equal(first, make_mask(diff(0.5), key, {32, 768})));
  // Static kinds ignore the step; dropout does not.
  CHECK(torch::equal(first, make_mask(diff(0.5), {key.site, "A", 1, 99}, {32, 768})));
  auto dropout = MaskOptions().kind(MaskKind::kDropout).density(0.5);
  CHECK_FALSE(torch::equal(make_mask(dropout, {key.site, "A", 1, 1}, {32, 768}),
                           make_mask(dropout, {key.site, "A", 1, 2}, {32, 768})));
}

TEST_CASE("masks are identical across processes", "[mask]") {
  // The hash is fixed arithmetic; pin one value so a change to it (which would silently change every
  // published mask) fails here, then confirm a child process draws the same mask.
  const MaskKey key{"encoder.layer.0.attention.self.value", "B", 1, 0};
  // Expected value computed independently (FNV-1a + splitmix64 in Python) from the canonical string
  // "capaboost-mask|42|encoder.layer.0.attention.self.value|B|1|0".
  CHECK(mask_stream_seed(diff(0.5, 42), key) == 12175761074186980204ULL);
  auto mask = make_mask(diff(0.5, 42), key, {16, 16});
  std::string here;
  for (int64_t i = 0; i < mask.numel(); ++i) here += mask.view(-1)[i].item<bool>() ? '1' : '0';

  if (std::getenv("CAPABOOST_MASK_CHILD") != nullptr) {
    std::printf("MASK=%s\n", here.c_str());
    return;
  }
  const std::string command = "CAPABOOST_MASK_CHILD=1 /proc/" + std::to_string(getpid()) +
                              "/exe \"masks are identical across processes\" 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe.get())) output += buffer;
  CHECK(output.find("MASK=" + here) != std::string::npos);
}
