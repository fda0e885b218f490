#include "train/run_pack.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "models/dropout_packing.h"
#include "sites/packed_tuner.h"
#include "sites/site_registry.h"

namespace capaboost {
namespace {

// Whether `name` is a parameter a run trains on its own: its tuners' or its head's.
bool is_run_owned(const std::string& name, const std::set<std::string>& tuned_sites) {
  if (name.rfind("classifier.", 0) == 0) return true;
  for (const auto& site : tuned_sites) {
    if (name.rfind(site + ".", 0) == 0 && name.size() > site.size() + 1 && name.find('.', site.size() + 1) != std::string::npos) {
      return true;  // "<site>.<tuner kind>.<tensor>": below the site, not the site's own weight or bias
    }
  }
  return false;
}

}  // namespace

PackedSequenceClassifier::PackedSequenceClassifier(RobertaForSequenceClassification carrier,
                                                   std::vector<RobertaForSequenceClassification> runs)
    : carrier_(std::move(carrier)), runs_(std::move(runs)) {
  TORCH_CHECK(!runs_.empty(), "PackedSequenceClassifier: no runs to pack");
  TORCH_CHECK(find_tuners(*carrier_).empty(), "PackedSequenceClassifier: the carrier must carry no tuners");
  std::vector<std::string> sites;
  std::set<std::string> tuned;
  for (const auto& [name, site] : find_sites(*runs_.front())) {
    if (site->tuner()) {
      sites.push_back(name);
      tuned.insert(name);
    }
  }
  TORCH_CHECK(!sites.empty(), "PackedSequenceClassifier: the runs have no tuners on linear sites; packing needs them");
  TORCH_CHECK(find_tuners(*runs_.front()).size() == sites.size(),
              "PackedSequenceClassifier: tuners on attention sites (prefix tuning) cannot be packed");

  // Every run: the same tuned sites, a frozen backbone equal to the carrier's.
  const auto carrier_parameters = carrier_->named_parameters();
  for (size_t i = 0; i < runs_.size(); ++i) {
    std::vector<std::string> run_sites;
    for (const auto& [name, site] : find_sites(*runs_[i])) {
      if (site->tuner()) run_sites.push_back(name);
    }
    TORCH_CHECK(run_sites == sites, "PackedSequenceClassifier: run ", i, " tunes other sites than run 0; packed runs "
                "must use the same method targets");
    for (const auto& item : runs_[i]->named_parameters()) {
      if (is_run_owned(item.key(), tuned)) continue;
      TORCH_CHECK(!item.value().requires_grad(), "PackedSequenceClassifier: run ", i, " trains backbone parameter '",
                  item.key(), "'; packed runs share a frozen backbone (BitFit and full fine-tuning cannot be packed)");
      const auto* shared = carrier_parameters.find(item.key());
      TORCH_CHECK(shared != nullptr && shared->sizes() == item.value().sizes() && torch::equal(*shared, item.value()),
                  "PackedSequenceClassifier: run ", i, "'s frozen '", item.key(),
                  "' differs from the carrier's; packed runs must load the same backbone");
    }
  }

  for (auto& parameter : carrier_->parameters()) parameter.requires_grad_(false);
  std::map<std::string, std::vector<SiteTunerPtr>> tuners_by_site;
  for (auto& run : runs_) {
    for (const auto& [name, site] : find_sites(*run)) {
      if (site->tuner()) tuners_by_site[name].push_back(site->tuner());
    }
  }
  for (const auto& [name, site] : find_sites(*carrier_)) {
    const auto found = tuners_by_site.find(name);
    if (found != tuners_by_site.end()) site->attach(PackedTuner(found->second).ptr());
  }
}

std::vector<torch::Tensor> PackedSequenceClassifier::forward(const Batch& batch) {
  const auto k = static_cast<int64_t>(runs_.size());
  const auto& input_ids = batch.input("input_ids");                  // (B, T)
  const auto attention_mask = batch.optional_input("attention_mask");  // (B, T) or undefined
  torch::Tensor features;                                              // (k·B, C)
  {
    // The shared encoder sees k copies; each dropout call masks them alike, as each run alone.
    const DropoutTiling tiled(k);
    features = carrier_->roberta->first_token_state(input_ids.repeat({k, 1}),
                                                    attention_mask.defined() ? attention_mask.repeat({k, 1})
                                                                             : torch::Tensor());
  }
  const auto slices = features.chunk(k);  // k × (B, C)
  std::vector<torch::Tensor> outputs;
  outputs.reserve(runs_.size());
  DropoutSeedReplay replay;  // the heads' dropout: drawn once, as each run alone draws it
  for (int64_t i = 0; i < k; ++i) {
    if (i > 0) replay.next_slice();
    outputs.push_back(runs_[i]->classifier->forward(slices[i]));  // (B, num_labels)
  }
  return outputs;
}

void PackedSequenceClassifier::train(bool on) {
  carrier_->train(on);
  for (auto& run : runs_) run->train(on);
}

}  // namespace capaboost
