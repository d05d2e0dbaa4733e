#pragma once
// The cost dashboard (`gpuplan report`) for people: the period's summary, teams, users and
// experiments as tables, the experiment families when runs carry outcomes, and the alerts as
// notes. JSON, CSV and HTML are spend_render's.
#include <string>
#include <vector>

#include "gpuplan/spend.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

std::vector<Table> spend_report_tables(const SpendReport& r);
// The families' notes, then one "alert: ..." per alert, or "no alerts".
std::vector<std::string> spend_report_notes(const SpendReport& r);

}  // namespace gpuplan::io
