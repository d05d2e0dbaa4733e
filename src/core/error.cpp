#include "gpuplan/error.hpp"

namespace gpuplan {

std::string describe(const SourceLocation& where, const std::string& field, const std::string& problem) {
  std::string out;
  if (!where.path.empty()) {
    out += where.path;
    if (where.line > 0) {
      out += ":" + std::to_string(where.line);
      if (where.column > 0) out += ":" + std::to_string(where.column);
    }
    out += ": ";
  }
  if (!field.empty()) out += "field '" + field + "': ";
  out += problem;
  return out;
}

InputError::InputError(SourceLocation where, std::string field, std::string problem)
    : std::runtime_error(describe(where, field, problem)),
      where_(std::move(where)),
      field_(std::move(field)),
      problem_(std::move(problem)) {}

InputError::InputError(std::string problem) : std::runtime_error(problem), problem_(std::move(problem)) {}

namespace {
std::string join(const std::vector<InputError>& errors) {
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : "\n") + std::string(e.what());
  return out;
}
}  // namespace

InputErrors::InputErrors(std::vector<InputError> errors) : std::runtime_error(join(errors)), errors_(std::move(errors)) {}

}  // namespace gpuplan
