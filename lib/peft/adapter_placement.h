#pragma once
// Where an adapter-like tuner (a bottleneck adapter, CapaBoost-PAdapter, ProPETL's shared adapter,
// AdaMix's mixture) acts on each selected site, as the run parameter `placement`:
// - output (the default, which every run recorded before `placement` existed used): on the projection's
//   output, before the block's dropout, residual and LayerNorm: y' = y + A(y);
// - after_layer_norm: after the LayerNorm of the residual block the projection feeds
//   (sites/residual_site.h), out = LN(s + A(LN(s))) with s = h + x: Pfeiffer et al.'s and
//   adapter-transformers' placement, the one the paper names ("after FFN and LayerNorm modules", §2).
// Same parameters, same budget either way; the tuner returns its correction only after the LayerNorm,
// since the residual site adds the block's sum itself.
//
//   parameters.push_back(adapter_placement_parameter());
//   attach_by_placement(model, config, [&](const std::string& site, int64_t features, bool residual) { … });

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "params/parameter.h"
#include "params/parameters.h"
#include "sites/site_tuner.h"

namespace capaboost {

/// `placement`: output | after_layer_norm, default output (unkeyed at its default, so runs recorded
/// before the parameter existed keep their keys).
ParameterDef adapter_placement_parameter();

/// Builds the tuner of one site: its name, its width C, and whether it adds its input back (y + A(y):
/// on a projection's output) or returns the correction alone (after the LayerNorm).
using PlacedTunerFactory = std::function<SiteTunerPtr(const std::string& site, int64_t features, bool residual)>;

/// Attaches `factory`'s tuners at the sites `config`'s selection names (sites/site_parameters.h), where
/// its `placement` says; returns the sites' names.
std::vector<std::string> attach_by_placement(torch::nn::Module& model, const Parameters& config,
                                             const PlacedTunerFactory& factory);

}  // namespace capaboost
