#pragma once
// The binary case the metric tests share: TP = 4, FN = 2, TN = 2, FP = 2, so
// MCC = (4·2 − 2·2) / √(6·6·4·4) = 4/24 = 1/6; accuracy 6/10; F1 = 8/12 = 2/3.

#include <cstdint>
#include <vector>

namespace capaboost::testing {

inline const std::vector<int64_t> kBinaryTruth{1, 1, 1, 0, 0, 0, 1, 0, 1, 1};
inline const std::vector<int64_t> kBinaryGuess{1, 0, 1, 0, 1, 0, 1, 1, 1, 0};

}  // namespace capaboost::testing
