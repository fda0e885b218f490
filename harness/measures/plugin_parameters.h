#pragma once
// Parameters whose value picks a plugin, shared by the measures that take them: `method` brings the
// method's parameters, `task` the task's, `model` names a backbone. Their choices come from the
// registries, so a newly registered plugin is accepted everywhere at once.

#include "params/parameter.h"

namespace capaboost::harness {

ParameterDef method_parameter();
ParameterDef task_parameter();
ParameterDef model_parameter();

}  // namespace capaboost::harness
