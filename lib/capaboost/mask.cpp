#include "capaboost/mask.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdio>

#include "util/closest_match.h"
#include "util/seed_mixer.h"

namespace capaboost {

namespace {

constexpr MaskKind kAllKinds[] = {MaskKind::kNone, MaskKind::kDiff, MaskKind::kSame, MaskKind::kDropout, MaskKind::kNM};

}  // namespace

MaskKind parse_mask_kind(const std::string& name) {
  for (const MaskKind kind : kAllKinds) {
    if (to_string(kind) == name) return kind;
  }
  TORCH_CHECK(false, "unknown mask kind '", name, "'", did_you_mean(name, mask_kind_names()), "; choose one of ",
              fmt::format("{}", fmt::join(mask_kind_names(), ", ")));
}

std::vector<std::string> mask_kind_names() {
  std::vector<std::string> names;
  for (const MaskKind kind : kAllKinds) names.push_back(to_string(kind));
  return names;
}

std::optional<std::pair<int64_t, int64_t>> parse_nm(const std::string& text) {
  long long n = -1, m = -1;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lld:%lld%c", &n, &m, &tail) != 2 || n < 0 || m <= 0 || n > m) return std::nullopt;
  return std::make_pair(static_cast<int64_t>(n), static_cast<int64_t>(m));
}

std::string to_string(MaskKind kind) {
  switch (kind) {
    case MaskKind::kNone:
      return "none";
    case MaskKind::kDiff:
      return "diff";
    case MaskKind::kSame:
      return "same";
    case MaskKind::kDropout:
      return "dropout";
    case MaskKind::kNM:
      return "nm";
  }
  return "?";
}

uint64_t mask_stream_seed(const MaskOptions& options, const MaskKey& key) {
  const int64_t branch = options.kind() == MaskKind::kSame ? 0 : key.branch;
  const int64_t step = options.kind() == MaskKind::kDropout ? key.step : 0;
  const std::string canonical =
      fmt::format("capaboost-mask|{}|{}|{}|{}|{}", options.seed(), key.site, key.factor, branch, step);
  return text_seed(canonical);
}

int64_t kept_count(const MaskOptions& options, int64_t numel) {
  if (options.kind() == MaskKind::kNone) return numel;
  if (options.kind() == MaskKind::kNM) return numel / options.m() * options.n();
  return std::llround(static_cast<double>(numel) * options.density());
}

torch::Tensor make_mask(const MaskOptions& options, const MaskKey& key, torch::IntArrayRef shape) {
  TORCH_CHECK(shape.size() == 2, "make_mask: masks are 2-D (rows, inputs), got shape ", shape, " for site '",
              key.site, "' factor '", key.factor, "'");
  const int64_t numel = shape[0] * shape[1];
  const auto bool_opts = torch::TensorOptions().dtype(torch::kBool);
  if (options.kind() == MaskKind::kNone) return torch::ones(shape, bool_opts);

  auto generator = at::make_generator<at::CPUGeneratorImpl>(mask_stream_seed(options, key));

  if (options.kind() == MaskKind::kNM) {
    const int64_t n = options.n(), m = options.m(), inputs = shape[1];
    TORCH_CHECK(m > 0 && n >= 0 && n <= m, "N:M mask needs 0 <= N <= M, got ", n, ":", m);
    TORCH_CHECK(inputs % m == 0, "N:M mask ", n, ":", m, " needs the input dimension to be a multiple of ", m,
                ", but site '", key.site, "' factor '", key.factor, "' has shape ", shape);
    // Rank M uniform draws per group; the N smallest are kept: a uniformly random N-subset per group.
    auto scores = torch::rand({shape[0], inputs / m, m}, generator);  // (rows, groups, M)
    auto order = scores.argsort(int64_t{-1});                         // (rows, groups, M)
    auto mask = torch::zeros({shape[0], inputs / m, m}, bool_opts);
    mask.scatter_(-1, order.narrow(-1, 0, n), true);
    return mask.reshape(shape);
  }

  const double density = options.density();
  TORCH_CHECK(density > 0.0 && density <= 1.0, "mask density must be in (0, 1], got ", density, " (site '",
              key.site, "')");
  const int64_t kept = kept_count(options, numel);
  auto chosen =
      torch::randperm(numel, generator, torch::TensorOptions().dtype(torch::kLong)).narrow(0, 0, kept);
  auto mask = torch::zeros({numel}, bool_opts);
  mask.index_fill_(0, chosen, true);
  return mask.reshape(shape);
}

}  // namespace capaboost
