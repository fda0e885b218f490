#pragma once
// TensorBoard's event file, written without TensorFlow: TFRecord framing (length, masked CRC-32C of the
// length, the bytes, their masked CRC-32C) around `Event` protocol buffers (tensorflow/core/util/
// event.proto: wall_time = 1, step = 2, file_version = 3, summary = 5), each summary holding scalars as
// `Summary.Value{tag = 1, simple_value = 2}` — what TensorBoard's scalar dashboard and its event loader
// read.
//
//   std::string file = encode_event_file(points, /*start_wall_time=*/1.7e9);   // bytes of the file

#include <string>
#include <vector>

#include "train/training_scalars.h"

namespace capaboost::harness {

/// The event file of `points`: a file-version event ("brain.Event:2") at `start_wall_time` (seconds since
/// the epoch), then one event per step holding that step's scalars, in the points' order, each at
/// start_wall_time + the point's seconds. Values are stored as float32, as simple_value is.
std::string encode_event_file(const std::vector<ScalarPoint>& points, double start_wall_time);

}  // namespace capaboost::harness
