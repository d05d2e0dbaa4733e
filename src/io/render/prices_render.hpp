#pragma once
// `gpuplan prices update`'s report: one row per provider asked (updated, unchanged or failed),
// spelled as JSON, a table (raw CSV columns beside it), the note under it and the error lines.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/catalogs/price_cache.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct PriceUpdateRow {
  std::string provider;
  PriceUpdateOutcome outcome = PriceUpdateOutcome::failed;
  std::string source;   // the URL or file asked
  std::optional<std::size_t> offers;     // only for a sheet downloaded afresh
  std::optional<std::uint64_t> bytes;    // likewise
  std::optional<std::string> checked_at;  // when the server was asked; absent when it failed
  std::optional<std::string> reason;      // why it failed; absent otherwise
};

struct PricesUpdateView {
  std::string cache_dir;
  std::vector<PriceUpdateRow> rows;
};

nlohmann::json prices_update_json(const PricesUpdateView& v);
Table prices_update_table(const PricesUpdateView& v);
std::vector<std::string> prices_update_notes(const PricesUpdateView& v);
// One message per failed provider ("runpod: HTTP 404 (URL); ..."), printed as errors.
std::vector<std::string> prices_update_errors(const PricesUpdateView& v);

}  // namespace gpuplan::io
