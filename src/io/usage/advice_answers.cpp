#include "io/usage/advice_answers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "gpuplan/units.hpp"
#include "io/text/flat_yaml.hpp"

namespace gpuplan::io {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

std::optional<std::string> share(double& out, const std::string& text) {
  auto v = parse_fraction(text);
  if (!v) return v.error;
  if (*v.value < 0 || *v.value > 1) return "expected 0% to 100%, got \"" + text + "\"";
  out = *v.value;
  return std::nullopt;
}

std::optional<std::string> yes_no(bool& out, const std::string& text) {
  const std::string t = lower(text);
  if (t == "yes" || t == "y" || t == "true") out = true;
  else if (t == "no" || t == "n" || t == "false") out = false;
  else return "expected yes or no, got \"" + text + "\"";
  return std::nullopt;
}

// "18", "18mo", "2y": months.
std::optional<std::string> months(double& out, const std::string& text) {
  const std::string t = lower(text);
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  auto n = parse_count(t.substr(0, i));
  const std::string unit = t.substr(i);
  if (i == 0 || !n || !(unit.empty() || unit == "mo" || unit == "months" || unit == "y" || unit == "years"))
    return "expected months such as 18, 18mo or 2y, got \"" + text + "\"";
  out = *n.value * (unit == "y" || unit == "years" ? 12 : 1);
  if (!(out > 0) || out > 240) return "expected 1 to 240 months, got \"" + text + "\"";
  return std::nullopt;
}

}  // namespace

const std::vector<AdviceQuestion>& advice_questions() {
  static const std::vector<AdviceQuestion> q = {
      {"gpu_hours_per_week", "--gpu-hours-per-week", "1. How many GPU hours per week do you actually use (training and experiments)?", "300"},
      {"steady_share", "--steady-share", "2. How much of that is a steady baseline running around the clock (share)?", "40%"},
      {"uncertainty", "--uncertainty", "2. How far off could your utilisation forecast be (± share)?", "40%"},
      {"interruptible", "--interruptible", "3. What share of the work can be interrupted and resumed?", "60%"},
      {"checkpoints", "--checkpoints", "3. Do those interruptible jobs checkpoint (yes/no)?", "yes"},
      {"low_latency_inference", "--low-latency-inference", "4. Do you need low-latency inference (yes/no)?", "no"},
      {"inference_gpus", "--inference-gpus", "4. How many GPUs serve inference around the clock (0 if none yet)?", "2"},
      {"cost_of_waiting", "--cost-of-waiting", "5. What is the cost of waiting for capacity (low/medium/high)?", "medium"},
      {"churn", "--churn", "7. How many months before your model/GPU requirements change materially?", "18"},
      {"ops", "--ops", "8. Can your team operate a cluster (managed/kubernetes/slurm)?", "managed"},
  };
  return q;
}

std::optional<std::string> apply_answer(AdviceAnswers& a, const std::string& key, const std::string& text) {
  if (key == "steady_share") return share(a.steady_share, text);
  if (key == "uncertainty") {
    std::string t = text;
    for (const std::string p : {"\xC2\xB1", "+/-", "+-"})
      if (t.compare(0, p.size(), p) == 0) t = t.substr(p.size());
    return share(a.uncertainty, t);
  }
  if (key == "interruptible") return share(a.interruptible_share, text);
  if (key == "checkpoints") return yes_no(a.checkpoints, text);
  if (key == "low_latency_inference") return yes_no(a.low_latency_inference, text);
  if (key == "churn") return months(a.churn_months, text);
  if (key == "gpu_hours_per_week") {
    auto v = parse_count(text);
    if (!v) return v.error;
    if (*v.value < 0 || *v.value > 1e8) return "expected 0 to 1e8 GPU-hours a week, got \"" + text + "\"";
    a.gpu_hours_per_week = *v.value;
    return std::nullopt;
  }
  if (key == "inference_gpus") {
    auto v = parse_int(text, 0, 1024);
    if (!v) return v.error;
    a.inference_gpus = static_cast<int>(*v.value);
    return std::nullopt;
  }
  const std::string t = lower(text);
  if (key == "cost_of_waiting") {
    if (t == "low") a.wait_cost = WaitCost::low;
    else if (t == "medium") a.wait_cost = WaitCost::medium;
    else if (t == "high") a.wait_cost = WaitCost::high;
    else return "expected low, medium or high, got \"" + text + "\"";
    return std::nullopt;
  }
  if (key == "ops") {
    if (t == "managed" || t == "none") a.ops = OpsSkill::managed;
    else if (t == "kubernetes" || t == "k8s") a.ops = OpsSkill::kubernetes;
    else if (t == "slurm") a.ops = OpsSkill::slurm;
    else return "expected managed, kubernetes or slurm, got \"" + text + "\"";
    return std::nullopt;
  }
  return "unknown question";
}

std::map<std::string, AnswerText> load_advice_answers(const std::string& path) {
  const FlatDocument doc = load_flat_yaml(path, "answers");
  std::map<std::string, AnswerText> out;
  const auto& qs = advice_questions();
  for (const FlatEntry& e : doc.entries) {
    const bool known = std::any_of(qs.begin(), qs.end(), [&](const AdviceQuestion& q) { return e.key == q.key; });
    if (!known) {
      std::string list;
      for (const auto& q : qs) list += (list.empty() ? "" : ", ") + std::string(q.key);
      throw InputError(e.where, e.key, "unknown answer (expected one of " + list + ")");
    }
    if (e.is_list || e.values.size() != 1) throw InputError(e.value_where, e.key, "expected one value, not a list");
    AdviceAnswers scratch;
    if (auto problem = apply_answer(scratch, e.key, e.values.front())) throw InputError(e.value_where, e.key, *problem);
    out[e.key] = AnswerText{e.values.front(), e.value_where};
  }
  return out;
}

}  // namespace gpuplan::io
