#include "io/render/prices_render.hpp"

namespace gpuplan::io {

using nlohmann::json;

namespace {

template <typename T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

template <typename T>
std::string or_text(const std::optional<T>& v, const std::string& absent) {
  return v ? std::to_string(*v) : absent;
}

}  // namespace

json prices_update_json(const PricesUpdateView& v) {
  json updates = json::array();
  for (const PriceUpdateRow& u : v.rows)
    updates.push_back({{"provider", u.provider}, {"outcome", to_string(u.outcome)}, {"source", u.source}, {"offers", or_null(u.offers)},
                       {"bytes", or_null(u.bytes)}, {"checked_at", or_null(u.checked_at)}, {"reason", or_null(u.reason)}});
  return {{"cache_dir", v.cache_dir}, {"updates", updates}};
}

// The table shows the source, or for a failure its reason; CSV keeps both in their own columns.
Table prices_update_table(const PricesUpdateView& v) {
  Table t;
  t.columns = {"provider", "outcome", "offers", "bytes", "source / reason"};
  t.csv_columns = {"provider", "outcome", "offers", "bytes", "source", "reason"};
  t.align = {Align::left, Align::left, Align::right, Align::right, Align::left};
  t.cuttable = {4};
  for (const PriceUpdateRow& u : v.rows) {
    t.rows.push_back({u.provider, to_string(u.outcome), or_text(u.offers, "-"), or_text(u.bytes, "-"), u.reason.value_or(u.source)});
    t.csv_rows.push_back({u.provider, to_string(u.outcome), or_text(u.offers, ""), or_text(u.bytes, ""), u.source, u.reason.value_or("")});
  }
  return t;
}

std::vector<std::string> prices_update_notes(const PricesUpdateView& v) {
  return {"cache: " + v.cache_dir + "; every pricing command now uses these sheets over the shipped ones "
          "(--offline: shipped only); unchanged = the server said the cached sheet is current"};
}

std::vector<std::string> prices_update_errors(const PricesUpdateView& v) {
  std::vector<std::string> out;
  for (const PriceUpdateRow& u : v.rows)
    if (u.reason) out.push_back(u.provider + ": " + *u.reason + " (" + u.source + "); its previous cached sheet, if any, is kept");
  return out;
}

}  // namespace gpuplan::io
