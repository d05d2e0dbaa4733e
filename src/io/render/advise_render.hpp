#pragma once
// `gpuplan advise`'s report: the pattern and why, the placement per workload class, the
// buy-vs-rent numbers behind it, the answers with where each came from, and what would change
// the answer; as JSON and tables.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/advise.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct AnswerRow {
  std::string key, question, answer, source;  // source: "flag --x", "FILE:LINE", "demand FILE", "prompt", "computed"
};

struct AdviseContext {
  std::string gpu, currency;
  std::vector<AnswerRow> answers;
  const TcoAnalysis* training = nullptr;
  const TcoAnalysis* serving = nullptr;
};

nlohmann::json advise_json(const Advice& a, const AdviseContext& c);
// The pattern with its reasons, the split, the numbers, the answers, what would change it.
std::vector<Table> advise_tables(const Advice& a, const AdviseContext& c, MoneyStyle style);
// The split alone (what --format csv prints).
Table advise_split_table(const Advice& a);

}  // namespace gpuplan::io
