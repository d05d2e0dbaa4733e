#pragma once
// Reading and writing files at the edge: size caps and file-type checks before parsing, atomic
// replacement after. "-" names standard input (reading) or standard output (writing).
#include <cstdint>
#include <string>

namespace gpuplan::io {

// Input files larger than this are refused before any parser sees them (overridable per call).
inline constexpr std::uint64_t kMaxInputBytes = 64ull * 1024 * 1024;

// Hand-written small files (experiment specs, budget policies, advise answers, calibration
// profiles) are capped far lower: yaml-cpp's tree costs ~250 bytes of memory per input byte, so
// 64 MiB of YAML took 3.4 GB; the largest real ones are a few KiB.
inline constexpr std::uint64_t kMaxSmallFileBytes = 1024 * 1024;

// Reads a whole file ("-": standard input, once per process); throws InputError naming the
// path when it is missing, unreadable, a directory, not a regular file (a FIFO or a device
// would block or never end), or larger than max_bytes.
std::string read_file(const std::string& path, std::uint64_t max_bytes = kMaxInputBytes);

// Throws InputError naming the path unless it is a regular file (symlinks followed) or "-".
void require_regular_file(const std::string& path);

// Opens a regular file for reading (read_file's checks, not "-"); the caller closes the descriptor.
int open_regular_file(const std::string& path);

// Writes via a fresh temporary (mkstemp) in the target's folder, fsync and rename(), so
// readers never see a partly written file and any failure (a full disk included) leaves the
// old file as it was and is reported. Keeps an existing file's permission bits; refuses to
// replace what is not a regular file (a symlink, a device, a FIFO), or a file this command read
// (require_not_an_input). "-" writes standard output.
void write_file_atomic(const std::string& path, const std::string& contents);

// Output over input: every file a command reads is noted (read_file does it; other readers call
// these), and write_file_atomic refuses a target that is one of them (`--out runs.jsonl` when
// runs.jsonl is the input, `--html` naming the ledger), so an answer never replaces its source.
// The CLI turns tracking on for the whole run; a library user (a test that edits a file it read)
// leaves it off.
void track_inputs(bool on);
void note_input_file(int fd);
void note_input_path(const std::string& path);
// Throws InputError naming `path` when it is a file this process has read.
void require_not_an_input(const std::string& path);

// Writes all of `data` to a file descriptor, retrying short writes; false with errno set on error.
bool write_all(int fd, const char* data, std::size_t size);

}  // namespace gpuplan::io
