#pragma once
// Reading and writing files at the edge: size caps before parsing, atomic replacement after.
#include <cstdint>
#include <string>

namespace gpuplan::io {

// Input files larger than this are refused before any parser sees them (overridable per call).
inline constexpr std::uint64_t kMaxInputBytes = 64ull * 1024 * 1024;

// Reads a whole file; throws InputError naming the path when it is missing, unreadable, a
// directory, or larger than max_bytes.
std::string read_file(const std::string& path, std::uint64_t max_bytes = kMaxInputBytes);

// Writes via a temporary file in the same directory and rename(), so readers never see a
// partly written file and a failure leaves the old one intact.
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace gpuplan::io
