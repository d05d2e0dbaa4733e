#pragma once
// The answers `gpuplan advise` takes: the question list (key, flag, question, example), reading
// one answer's text into AdviceAnswers, and an answers YAML file ("interruptible: 60%"), every
// problem named by file, line and field.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/advise.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan::io {

struct AdviceQuestion {
  const char* key;        // YAML key: "gpu_hours_per_week"
  const char* flag;       // "--gpu-hours-per-week"
  const char* question;   // seed 001's wording, numbered
  const char* example;    // "300"
};
const std::vector<AdviceQuestion>& advice_questions();

// Sets the field `key` from `text`; the problem in words when the text is not a valid answer.
std::optional<std::string> apply_answer(AdviceAnswers& a, const std::string& key, const std::string& text);

struct AnswerText {
  std::string text;
  SourceLocation where;   // of the value
};
// key -> answer; unknown keys and invalid values are InputErrors at the key or value.
std::map<std::string, AnswerText> load_advice_answers(const std::string& path);

}  // namespace gpuplan::io
