#include "runtime/direct_sgemm.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

using namespace capaboost::runtime;

namespace {

SgemmOperand operand_of(const torch::Tensor& t) {
  return {t.data_ptr<float>(), t.stride(0), t.stride(1)};
}

}  // namespace

TEST_CASE("direct_sgemm equals torch::mm for row- and column-major operands with padded leading dims",
          "[blas]") {
  torch::manual_seed(3);
  const int64_t m = 5, k = 7, n = 3;
  // Row-major with a leading dimension wider than the matrix (a slice of a wider buffer), and
  // column-major (the transpose of a row-major buffer): the two layouts heads and kᵀ have in attention.
  const auto a_wide = torch::randn({m, k + 4});
  const auto a_row = a_wide.narrow(1, 2, k);
  const auto a_col = torch::randn({k, m}).t();
  const auto b_wide = torch::randn({k, n + 2});
  const auto b_row = b_wide.narrow(1, 1, n);
  const auto b_col = torch::randn({n + 3, k}).narrow(0, 0, n).t();
  for (const auto& a : {a_row, a_col}) {
    for (const auto& b : {b_row, b_col}) {
      auto c = torch::full({m, n}, 2.0f);
      REQUIRE(direct_sgemm(m, n, k, 0.5f, operand_of(a), operand_of(b), 1.0f, c.data_ptr<float>(), n));
      const auto expected = 0.5 * torch::mm(a, b) + 2.0;
      CHECK(torch::allclose(c, expected, 1e-5, 1e-5));
    }
  }
}

TEST_CASE("direct_sgemm refuses operands without a unit stride and leaves the output alone", "[blas]") {
  const auto a = torch::randn({4, 12}).slice(1, 0, 12, 2);  // (4, 6), strides (12, 2)
  const auto b = torch::randn({6, 3});
  auto c = torch::zeros({4, 3});
  CHECK_FALSE(direct_sgemm(4, 3, 6, 1.0f, operand_of(a), operand_of(b), 0.0f, c.data_ptr<float>(), 3));
  CHECK(c.abs().sum().item<float>() == 0.0f);
}
