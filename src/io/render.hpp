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
};

std::string render_table(const Table& t, bool color);
std::string render_csv(const Table& t);
std::string render_markdown(const Table& t);

// A horizontal bar of `width` cells for a share in [0, 1].
std::string bar(double share, int width);

}  // namespace gpuplan::io
