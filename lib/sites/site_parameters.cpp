#include "sites/site_parameters.h"

#include <regex>

namespace capaboost {

ParameterList site_selection_parameters(std::vector<std::string> default_targets, std::string default_regex) {
  return owned(
      {
          ParameterDef::text_list("targets", "site-name suffixes the method attaches to").defaults_to(default_targets),
          ParameterDef::text("target_regex", "regex the whole site name must match ('' for none)")
              .defaults_to(default_regex)
              .checked_by([](const nlohmann::json& value, const nlohmann::json&) -> std::string {
                try {
                  std::regex check(value.get<std::string>());
                  return "";
                } catch (const std::regex_error& e) {
                  return "target_regex '" + value.get<std::string>() + "' is not a valid regex: " + e.what();
                }
              }),
      },
      "sites");
}

SiteSelector site_selector(const Parameters& config) {
  SiteSelector selector;
  selector.suffixes = config.get<std::vector<std::string>>("targets");
  const auto regex = config.get<std::string>("target_regex");
  if (!regex.empty()) selector.regex = regex;
  return selector;
}

}  // namespace capaboost
