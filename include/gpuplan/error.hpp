#pragma once
// Errors that cross the library's edge. The core returns plain results; "does not fit" is a
// result, not an error. Loaders and parsers throw InputError, which carries where the bad
// input sits so that people and CI annotations can jump to it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan {

struct SourceLocation {
  std::string path;  // file path, or a pseudo-name such as "--model-config" or "<flag --gpus>"
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string field, std::string problem);
  // A problem with no file behind it (a flag value, for instance).
  explicit InputError(std::string problem);

  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string problem_;
};

// Formats `path:line:col: field 'x': problem` (each part only when known).
std::string describe(const SourceLocation& where, const std::string& field, const std::string& problem);

// Several input problems reported together (catalog validate reports them all).
class InputErrors : public std::runtime_error {
 public:
  explicit InputErrors(std::vector<InputError> errors);
  const std::vector<InputError>& errors() const { return errors_; }

 private:
  std::vector<InputError> errors_;
};

}  // namespace gpuplan
