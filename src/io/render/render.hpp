#pragma once
// Turning report tables into text: aligned tables for people, CSV and Markdown for tools.
#include <string>
#include <vector>

namespace gpuplan::io {

enum class Align { left, right };

struct Table {
  std::string title;
  std::vector<std::string> columns;
  std::vector<Align> align;                    // per column; default left
  std::vector<std::vector<std::string>> rows;
  // For CSV: raw numbers (no units, no "3.3h", no "%", no bar glyphs) under names that carry
  // the unit ("wall_seconds", "total_usd"). When empty, CSV prints the display rows.
  std::vector<std::string> csv_columns;
  std::vector<std::vector<std::string>> csv_rows;
  // Columns a narrow table may cut with an ellipsis (long offer ids); none by default, so a
  // listing never loses the id a user must type.
  std::vector<std::size_t> cuttable;
  // Columns a narrow table may leave out, least important first, when wrapping and cutting
  // are not enough; a line under the table names them.
  std::vector<std::size_t> droppable;
  std::size_t min_cut = 12;  // a cut column keeps at least this many characters
  // Columns holding names from input files (experiments, teams, users): Markdown shows them as
  // code spans, so a name cannot render as HTML, a link or an @mention.
  std::vector<std::size_t> name_columns;
};

// A table for a terminal of `max_width` columns (0: no limit): when wider, a trailing
// left-aligned text column wraps onto more lines, then the `cuttable` columns are cut with
// an ellipsis (down to 12 characters each), then `droppable` columns are left out; a line under
// the table says what was cut or left out.
std::string render_table(const Table& t, bool color, std::size_t max_width = 0);
std::string render_csv(const Table& t);
// Word-wraps `s` into lines of at most `width` code points (a longer word stays whole).
std::vector<std::string> wrap(const std::string& s, std::size_t width);
std::string render_markdown(const Table& t);

// Output safety, applied by every renderer to every cell (names come from files anyone can
// commit to): control characters (C0, DEL, C1) become U+FFFD, so a CR or LF in a name cannot
// break a table, start a line with `::` (a workflow command) or move the cursor.
std::string printable(const std::string& s);
// One CSV field: printable, quoted when needed, and formula-safe (a text cell starting with
// = + - @ gets a leading ', as OWASP advises; a number such as -3.5 stays a number).
std::string csv_cell(const std::string& s);
// Markdown text: printable, with HTML, emphasis, link and table syntax escaped and @mentions
// and autolinks broken by a zero-width space.
std::string markdown_text(const std::string& s);
// A name as a Markdown code span (fenced longer than any backtick run inside it).
std::string markdown_code(const std::string& s);

// A horizontal bar of `width` cells for a share in [0, 1].
std::string bar(double share, int width);

}  // namespace gpuplan::io
