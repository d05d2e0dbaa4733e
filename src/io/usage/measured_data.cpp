#include "io/usage/measured_data.hpp"

#include <cstdlib>
#include <stdexcept>

#include "io/text/files.hpp"

// Generated at configure time from data/measured/*.jsonl (CMakeLists.txt).
extern const char* const gpuplan_measured_memory_jsonl;
extern const char* const gpuplan_measured_throughput_jsonl;

namespace gpuplan::io {

std::vector<RunRecord> shipped_measured_runs(const std::string& name) {
  const std::string file = "data/measured/" + name + ".jsonl";
  if (const char* dir = std::getenv("GPUPLAN_DATA_DIR"); dir && *dir) {
    const std::string path = std::string(dir) + "/measured/" + name + ".jsonl";
    return parse_run_records(read_file(path), path);
  }
  if (name == "memory") return parse_run_records(gpuplan_measured_memory_jsonl, file);
  if (name == "throughput") return parse_run_records(gpuplan_measured_throughput_jsonl, file);
  throw std::logic_error("no shipped measured cases named " + name);
}

}  // namespace gpuplan::io
