#include "gpuplan/name_match.hpp"

#include <algorithm>
#include <cctype>

namespace gpuplan {

std::string normalise_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == ' ' || c == '-' || c == '_' || c == '/' || c == '\t') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool normalises_to(std::string_view name, std::string_view normalised) {
  std::size_t k = 0;
  for (char c : name) {
    if (c == ' ' || c == '-' || c == '_' || c == '/' || c == '\t') continue;
    if (k == normalised.size() || static_cast<char>(std::tolower(static_cast<unsigned char>(c))) != normalised[k]) return false;
    ++k;
  }
  return k == normalised.size();
}

int edit_distance(std::string_view a, std::string_view b, int max_distance) {
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  if (std::abs(n - m) > max_distance) return max_distance + 1;
  std::vector<int> prev(static_cast<std::size_t>(m) + 1), cur(static_cast<std::size_t>(m) + 1);
  for (int j = 0; j <= m; ++j) prev[static_cast<std::size_t>(j)] = j;
  for (int i = 1; i <= n; ++i) {
    cur[0] = i;
    int row_min = cur[0];
    for (int j = 1; j <= m; ++j) {
      const int cost = a[static_cast<std::size_t>(i - 1)] == b[static_cast<std::size_t>(j - 1)] ? 0 : 1;
      cur[static_cast<std::size_t>(j)] = std::min({prev[static_cast<std::size_t>(j)] + 1,
                                                    cur[static_cast<std::size_t>(j - 1)] + 1,
                                                    prev[static_cast<std::size_t>(j - 1)] + cost});
      row_min = std::min(row_min, cur[static_cast<std::size_t>(j)]);
    }
    if (row_min > max_distance) return max_distance + 1;
    std::swap(prev, cur);
  }
  return prev[static_cast<std::size_t>(m)];
}

std::string closest_name(std::string_view typed, const std::vector<std::string>& candidates) {
  // Names are short; a typed string far longer than any is not a typo of one, and comparing it
  // costs length x length per candidate (a 100k-character name took 17 s). Cap both.
  constexpr std::size_t kMaxTyped = 128;
  constexpr int kMaxDistance = 8;
  if (typed.size() > kMaxTyped) return "";
  const std::string t = normalise_name(typed);
  const int limit = std::min(kMaxDistance, std::max(1, static_cast<int>(t.size()) / 3));
  std::string best;
  int best_d = limit + 1;
  for (const auto& c : candidates) {
    if (c.size() > 4 * kMaxTyped) continue;
    const std::string n = normalise_name(c);
    int d = edit_distance(t, n, limit);
    // A typed prefix or substring ("llama-3.1" for "llama-3.1-8b") is a good suggestion too.
    if (d > limit && t.size() >= 3 && n.find(t) != std::string::npos) d = limit;
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string base_model_name(std::string_view name) {
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower.rfind("meta-", 0) == 0) lower.erase(0, 5);
  static const char* kVariants[] = {"instruct", "chat", "it", "base", "hf", "pt"};
  std::vector<std::string> kept;
  bool after_variant = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= lower.size(); ++i) {
    if (i < lower.size() && lower[i] != '-' && lower[i] != '_') continue;
    const std::string word = lower.substr(start, i - start);
    start = i + 1;
    const bool variant = std::any_of(std::begin(kVariants), std::end(kVariants), [&](const char* v) { return word == v; });
    const bool tag = after_variant && !word.empty() && word.size() <= 8 &&
                     std::all_of(word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (variant || tag) {
      after_variant = true;
      continue;
    }
    after_variant = false;
    if (!word.empty()) kept.push_back(word);
  }
  std::string out;
  for (const auto& w : kept) out += (out.empty() ? "" : "-") + w;
  return out;
}

}  // namespace gpuplan
