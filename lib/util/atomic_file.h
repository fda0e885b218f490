#pragma once
// Crash-safe file writing: a reader sees either the old file or the complete new one, never a torn one.

#include <cstddef>
#include <functional>
#include <string>

namespace capaboost {

/// Receives the bytes of the file being written, in order.
using ByteSink = std::function<void(const void* data, std::size_t size)>;

/// Writes `path` atomically: `produce` streams the content into a temporary file in the same directory,
/// which is flushed to disk and renamed over `path`. On any failure (including an exception thrown by
/// `produce`) the temporary file is removed, `path` is left as it was, and the error names `path`.
void write_file_atomically(const std::string& path, const std::function<void(const ByteSink&)>& produce);

/// Convenience overload for content already in memory.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace capaboost
