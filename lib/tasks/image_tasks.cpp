// The image classification tasks of the paper's Table 5 as task plugins, under the VTAB-1k protocol
// (data/vtab_splits.h):
//
//   CIFAR-100, DTD, Flower102, Pets, SVHN, Eurosat, Resisc45, Clevr-Count, Clevr-Dist, DMLab, dSpr-Ori,
//   sNORB-Azim   the twelve VTAB-1k tasks Table 5 prints, read from NOAH's layout under
//                <data root>/vtab-1k/<folder> (docs/data-and-protocols.md, "VTAB-1k", for the download step)
//   Fashion-MNIST-1k  the offline proxy: VTAB-1k's protocol on Debian's dataset-fashion-mnist (1,000
//                labelled images drawn from the 60,000 training images, the official 10,000 test images)
//
// Images reach the backbone through its processor (size, channels, normalisation: train/image_dataset.h);
// `image_normalization: imagenet` replaces the processor's mean and standard deviation with ImageNet's,
// as the paper's appendix (and NOAH's code) normalise VTAB-1k images.

#include <fmt/format.h>

#include <filesystem>

#include "data/data_root.h"
#include "data/idx_file.h"
#include "data/permutation.h"
#include "data/vtab_splits.h"
#include "tasks/task_registry.h"
#include "train/image_dataset.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

/// `image_normalization`: the backbone's own processor statistics, or ImageNet's (torchvision's and timm's
/// IMAGENET_DEFAULT_MEAN / _STD).
std::vector<std::string> image_normalization_names() { return {"checkpoint", "imagenet"}; }
const std::vector<double> kImagenetMean = {0.485, 0.456, 0.406};
const std::vector<double> kImagenetStd = {0.229, 0.224, 0.225};

/// Where Debian's dataset-fashion-mnist installs the IDX files.
constexpr const char* kFashionMnistFolder = "/usr/share/datasets/fashion-mnist";

struct VtabTask {
  const char* name;    // as Table 5 prints it
  const char* folder;  // NOAH's folder name under vtab-1k/
  int64_t classes;
  const char* group;   // Table 5's column group
};

// Class counts as VTAB defines the tasks (NOAH's dataset table).
constexpr VtabTask kVtabTasks[] = {
    {"CIFAR-100", "cifar", 100, "Natural"},           {"DTD", "dtd", 47, "Natural"},
    {"Flower102", "oxford_flowers102", 102, "Natural"}, {"Pets", "oxford_iiit_pet", 37, "Natural"},
    {"SVHN", "svhn", 10, "Natural"},                  {"Eurosat", "eurosat", 10, "Specialized"},
    {"Resisc45", "resisc45", 45, "Specialized"},      {"Clevr-Count", "clevr_count", 8, "Structured"},
    {"Clevr-Dist", "clevr_dist", 6, "Structured"},    {"DMLab", "dmlab", 6, "Structured"},
    {"dSpr-Ori", "dsprites_ori", 16, "Structured"},   {"sNORB-Azim", "smallnorb_azi", 18, "Structured"},
};

ParameterList image_parameters(const std::string& owner) {
  return owned(
      {
          ParameterDef::text("vtab_stage", "VTAB-1k stage: select (800 train, epoch chosen on 200) or final "
                                           "(all 1,000 train, last epoch on test)")
              .defaults_to("final")
              .one_of(vtab_stage_names),
          ParameterDef::integer("split_seed", "seed of the 800 + 200 draw from a labelled pool (Fashion-MNIST-1k)")
              .defaults_to(42)
              .at_least(0),
          ParameterDef::text("augmentation", "training augmentation: none (VTAB-1k's default, as NOAH) or crop_flip")
              .defaults_to("none")
              .one_of(image_augmentation_names),
          ParameterDef::integer("test_limit", "score on the first this many test images (0: all; smoke runs only)")
              .defaults_to(0)
              .at_least(0),
          ParameterDef::text("image_normalization",
                             "pixel statistics: checkpoint (the backbone's processor) or imagenet (mean 0.485/0.456/"
                             "0.406, std 0.229/0.224/0.225; RGB only)")
              .defaults_to("checkpoint")
              .one_of(image_normalization_names)
              .unkeyed_at_default(),
      },
      owner);
}

PreparedTask to_prepared(const std::string& task, VtabSplits splits, const Parameters& config,
                         const InputProcessor& processor, int64_t classes) {
  TORCH_CHECK(processor.image, task, " is an image task but the backbone reads no images; choose a ViT backbone");
  ImageProcessorOptions image = *processor.image;
  if (config.get<std::string>("image_normalization") == "imagenet") {
    TORCH_CHECK(image.image_mean().size() == 3, task, ": image_normalization imagenet needs an RGB backbone; this one reads ",
                image.image_mean().size(), " channel(s) (use checkpoint)");
    image.image_mean(kImagenetMean).image_std(kImagenetStd);
  }
  const auto augmentation = parse_image_augmentation(config.get<std::string>("augmentation"));
  // The augmentation draws follow the run seed, apart from the torch generator the trainer uses.
  const uint64_t seed = derive_seed(config.get<uint64_t>("seed"), /*stream=*/0x1A6E);
  const auto dataset = [&](ImageExamples examples, ImageAugmentation kind) {
    return std::make_shared<ImageDataset>(std::move(examples), image,
                                          ImageDatasetOptions().augmentation(kind).seed(seed).num_labels(classes));
  };
  PreparedTask prepared;
  prepared.data.train = dataset(std::move(splits.train), augmentation);
  prepared.data.eval = dataset(std::move(splits.eval), ImageAugmentation::kNone);
  prepared.data.eval_is_test = splits.eval_is_test;
  prepared.data.report_last_epoch = splits.eval_is_test;
  if (!splits.eval_is_test) prepared.data.test = dataset(std::move(splits.test), ImageAugmentation::kNone);
  prepared.provenance = std::move(splits.provenance);
  prepared.provenance["task"] = task;
  prepared.provenance["augmentation"] = to_string(augmentation);
  prepared.provenance["processor"] = {{"size", image.size()},
                                      {"image_mean", image.image_mean()},
                                      {"image_std", image.image_std()},
                                      {"normalization", config.get<std::string>("image_normalization")}};
  return prepared;
}

// ---- The twelve VTAB-1k tasks ----

fs::path vtab_folder(const VtabTask& task, const std::string& data_root) {
  return resolve_data_root(data_root, data_root).path / "vtab-1k" / task.folder;
}

void require_vtab(const VtabTask& task, const Parameters& config, const std::string& data_root) {
  const fs::path folder = vtab_folder(task, data_root);
  std::string missing;
  for (const auto& file : vtab1k_list_files(parse_vtab_stage(config.get<std::string>("vtab_stage")))) {
    if (!fs::exists(folder / file)) missing += (missing.empty() ? "" : ", ") + file;
  }
  if (missing.empty()) return;
  throw MissingDataError(fmt::format(
      "VTAB-1k task {} is not available: {} missing in {}. VTAB-1k cannot be downloaded here; on a machine "
      "with internet, prepare it as NOAH does (docs/data-and-protocols.md, \"VTAB-1k\") and put vtab-1k/ under the data root",
      task.name, missing, folder.string()));
}

PreparedTask prepare_vtab(const VtabTask& task, const Parameters& config, const InputProcessor& processor,
                          const std::string& data_root) {
  VtabSplits splits = read_vtab1k_folder(vtab_folder(task, data_root),
                                         parse_vtab_stage(config.get<std::string>("vtab_stage")),
                                         config.get<int64_t>("test_limit"));
  return to_prepared(task.name, std::move(splits), config, processor, task.classes);
}

// ---- Fashion-MNIST-1k, the offline proxy ----

ImageExamples read_fashion_mnist(const std::string& prefix) {
  const fs::path folder = kFashionMnistFolder;
  const auto images = read_idx_file((folder / (prefix + "-images-idx3-ubyte.gz")).string());  // (N, 28, 28)
  const auto labels = read_idx_file((folder / (prefix + "-labels-idx1-ubyte.gz")).string());  // (N)
  TORCH_CHECK(images.dim() == 3 && labels.dim() == 1 && images.size(0) == labels.size(0), "Fashion-MNIST ", prefix,
              ": ", images.sizes(), " images but ", labels.sizes(), " labels in ", folder.string());
  ImageExamples examples;
  const uint8_t* label_values = labels.data_ptr<uint8_t>();
  examples.labels.assign(label_values, label_values + labels.size(0));
  for (int64_t i = 0; i < images.size(0); ++i) examples.images.push_back(images[i].unsqueeze(2));  // (28, 28, 1)
  return examples;
}

void require_fashion_mnist(const Parameters&, const std::string&) {
  std::string missing;
  for (const char* file : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                           "t10k-labels-idx1-ubyte.gz"}) {
    if (!fs::exists(fs::path(kFashionMnistFolder) / file)) missing += (missing.empty() ? "" : ", ") + std::string(file);
  }
  if (!missing.empty()) {
    throw MissingDataError(fmt::format("Fashion-MNIST is not installed ({} missing in {}); `make deps` installs "
                                       "Debian's dataset-fashion-mnist",
                                       missing, kFashionMnistFolder));
  }
}

PreparedTask prepare_fashion_mnist(const Parameters& config, const InputProcessor& processor) {
  const nlohmann::json source = {{"dataset", "Fashion-MNIST (Debian dataset-fashion-mnist)"},
                                 {"folder", kFashionMnistFolder},
                                 {"pool", "train-images-idx3-ubyte.gz (60,000)"},
                                 {"test", "t10k-images-idx3-ubyte.gz (10,000)"}};
  VtabSplits splits = vtab1k_from_pool(read_fashion_mnist("train"), read_fashion_mnist("t10k"),
                                       parse_vtab_stage(config.get<std::string>("vtab_stage")),
                                       config.get<uint64_t>("split_seed"), config.get<int64_t>("test_limit"), source);
  return to_prepared("Fashion-MNIST-1k", std::move(splits), config, processor, 10);
}

double accuracy_score(const MetricValues& test) { return 100.0 * test.at("accuracy"); }

[[maybe_unused]] const bool registered_image_tasks = [] {
  for (const VtabTask& entry : kVtabTasks) {
    const VtabTask* task = &entry;
    register_task({task->name,
                   fmt::format("VTAB-1k {} ({}, {} classes; NOAH's layout under vtab-1k/{})", task->name, task->group,
                               task->classes, task->folder),
                   std::string("vtab-1k/") + task->folder, image_parameters("VTAB-1k"),
                   TaskHead{TaskHead::Kind::kSequenceClassification, task->classes},
                   [task](const Parameters& config, const std::string& data_root) {
                     require_vtab(*task, config, data_root);
                   },
                   [task](const Parameters& config, const InputProcessor& processor, const std::string& data_root) {
                     return prepare_vtab(*task, config, processor, data_root);
                   },
                   accuracy_score});
  }
  register_task({"Fashion-MNIST-1k",
                 "the offline vision proxy: VTAB-1k's protocol on Fashion-MNIST (1,000 of the 60,000 training "
                 "images, the 10,000 test images; Debian's dataset-fashion-mnist)",
                 kFashionMnistFolder, image_parameters("Fashion-MNIST-1k"),
                 TaskHead{TaskHead::Kind::kSequenceClassification, 10}, require_fashion_mnist,
                 [](const Parameters& config, const InputProcessor& processor, const std::string&) {
                   return prepare_fashion_mnist(config, processor);
                 },
                 accuracy_score});
  return true;
}();

}  // namespace
}  // namespace capaboost
