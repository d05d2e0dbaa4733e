#pragma once
// SkyPilot catalog price sheets (skypilot-org/skypilot-catalog `catalogs/v<N>/<cloud>/vms.csv`)
// -> one Provider of per-GPU-hour offers. Columns are found by header name (their order differs
// per cloud); rows repeated per availability zone collapse to one offer per (InstanceType,
// Region): on-demand at the lowest zone price, spot at the median over the zones (range kept).
// GCP's separate host and accelerator rows are added up per zone, as GCP bills them. docs/catalog-format.md, "SkyPilot CSV price sheets".
#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan::io {

// Data rows beyond this are refused (the largest published vms.csv, AWS, has about 20,000).
inline constexpr std::size_t kMaxSkypilotRows = 1'000'000;
// Fields in one record beyond this are refused (a real header has 9 to 11).
inline constexpr std::size_t kMaxSkypilotFields = 256;
// Reading stops after this many problems; the last error says so.
inline constexpr std::size_t kMaxSkypilotErrors = 100;

struct SkypilotCsvLoad {
  Catalog catalog;                    // one provider, or none when no row gave a usable offer
  std::vector<InputError> errors;     // empty on success
  std::vector<std::string> unmapped;  // accelerator names with no catalog GPU: "TPU-V5E (12 rows)"
  std::vector<std::string> skipped;   // other rows left out, with counts and why
  std::size_t cpu_only_rows = 0;      // rows with an empty AcceleratorName (expected; not reported)
};

// True when the first record is a header naming InstanceType, AcceleratorName,
// AcceleratorCount and Price.
bool looks_like_skypilot_csv(const std::string& text);

// ".../<cloud>/vms.csv" -> "<cloud>"; otherwise the file stem without a trailing "_vms"/"-vms",
// lowercased, with characters outside [a-z0-9.-] turned into '-'.
std::string skypilot_provider_id(const std::string& path);

// Parses one vms.csv. AcceleratorName values are resolved against `known` (pass the catalog
// loaded so far); billing terms are taken from a provider of the same id in `known`, if any.
SkypilotCsvLoad parse_skypilot_csv(const std::string& text, const std::string& path, const Catalog& known);
// The same, read from a stream in 1 MiB pieces: memory grows with the offers, not the file.
SkypilotCsvLoad parse_skypilot_csv(std::istream& in, const std::string& path, const Catalog& known);
// The file at `path`, streamed; throws InputError when it is missing or not a regular file.
SkypilotCsvLoad parse_skypilot_csv_file(const std::string& path, const Catalog& known);

}  // namespace gpuplan::io
