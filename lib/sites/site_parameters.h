#pragma once
// Which sites a method goes on, as run parameters (like PEFT's `target_modules`):
//   targets       site-name suffixes ("query" matches "…attention.self.query")
//   target_regex  a regex the whole site name must match ("" for none)
// A site matching either is selected. Each method declares its own default placement.

#include <string>
#include <vector>

#include "params/parameter.h"
#include "params/parameters.h"
#include "sites/site_registry.h"

namespace capaboost {

/// The two definitions with `default_targets` and `default_regex` as defaults, owned by "sites".
ParameterList site_selection_parameters(std::vector<std::string> default_targets, std::string default_regex = "");

/// The selector a resolved configuration holding site_selection_parameters() describes.
SiteSelector site_selector(const Parameters& config);

}  // namespace capaboost
