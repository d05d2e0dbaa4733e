#pragma once
// Measured-run records (JSON Lines, docs/run-records.md, schemas/run-record.schema.json): what
// tools/probe/gpuplan_probe.py appends, or what a person types from a run's logs. Parsed here
// into plain fields; turning settings into a Workload is the CLI's (the same flags as estimate).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/budget.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan::io {

struct RunRecord {
  SourceLocation where;                      // file and line of the record
  std::string id;                            // "" = "<file>:<line>"
  std::string gpu;                           // "" = CPU run (or the GPU is unknown)
  std::string torch_version, cuda_version, source, note;
  // The model: a catalog name, a Hugging Face config.json (inline or a path), or gpuplan's own
  // architecture fields (for models no config reader knows: BERT, MPT).
  std::string model, model_config_path, model_config_json;
  std::optional<ModelArch> model_arch;
  // estimate's flags as (flag, value) pairs: "--method" "lora"; a true switch has value "".
  std::vector<std::pair<std::string, std::string>> settings;
  int grad_accum = 1;
  int steps = 0, warmup_steps = 0;
  std::optional<double> allocated_bytes, reserved_bytes, device_bytes, tokens_per_second;
  // Measured outcomes, spelled and checked as in the spend ledger (docs/ledger.md): only the
  // outcome fields of this record are set (family, metrics, utilization, samples, requests,
  // restore_seconds), so they can be copied onto the run's ledger record.
  LedgerRecord outcomes;
};

// Every record of a JSON Lines file (blank lines and lines starting with '#' skipped). All
// problems are collected and thrown together, each naming file, line and field.
std::vector<RunRecord> read_run_records(const std::string& path);
std::vector<RunRecord> parse_run_records(const std::string& text, const std::string& path);

}  // namespace gpuplan::io
