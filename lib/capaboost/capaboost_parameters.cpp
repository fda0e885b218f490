#include "capaboost/capaboost_parameters.h"

namespace capaboost {

ParameterList capaboost_parameters() {
  const CapaBoostOptions plain;
  const MaskOptions mask;  // the kind's defaults: density, N:M and seed have one home, here
  return owned(
      {
          ParameterDef::integer("branches", "CapaBoost d, the number of weight-tied branches")
              .defaults_to(plain.branches())
              .at_least(1)
              .at_most(64),
          // d = 1 is the plain tuner, d > 1 the method: the kind follows d unless a spec names it.
          ParameterDef::text("mask", "CapaBoost mask kind")
              .derived("diff when branches > 1, else none",
                       [](const nlohmann::json& resolved) {
                         return to_string(resolved.at("branches").get<int64_t>() > 1 ? MaskKind::kDiff
                                                                                     : MaskKind::kNone);
                       })
              .one_of(mask_kind_names),
          ParameterDef::number("density", "kept fraction of each CapaBoost mask")
              .defaults_to(mask.density())
              .above(0)
              .at_most(1),
          ParameterDef::text("nm", "N:M pattern of the nm mask kind, e.g. '2:4'")
              .defaults_to(std::to_string(mask.n()) + ":" + std::to_string(mask.m()))
              .checked_by([](const nlohmann::json& value, const nlohmann::json&) -> std::string {
                return parse_nm(value.get<std::string>())
                           ? ""
                           : "nm must look like '2:4' with N <= M, got '" + value.get<std::string>() + "'";
              }),
          ParameterDef::integer("mask_seed", "seed of the CapaBoost masks (fixed across run seeds unless set)")
              .defaults_to(mask.seed())
              .at_least(0),
      },
      "CapaBoost");
}

CapaBoostOptions capaboost_options(const Parameters& config) {
  const auto nm = parse_nm(config.get<std::string>("nm"));
  TORCH_CHECK(nm, "capaboost_options: nm must look like '2:4', got '", config.get<std::string>("nm"), "'");
  MaskOptions mask;
  mask.kind(parse_mask_kind(config.get<std::string>("mask")))
      .density(config.get<double>("density"))
      .n(nm->first)
      .m(nm->second)
      .seed(config.get<uint64_t>("mask_seed"));
  return CapaBoostOptions().branches(config.get<int64_t>("branches")).mask(mask);
}

}  // namespace capaboost
