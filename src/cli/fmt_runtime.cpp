// fmt's one out-of-line entry point that gpuplan calls (fmt::vformat, behind fmt::format),
// compiled from fmt's own header-only sources into the executable. With it, and yaml-cpp and
// SQLite linked from their archives, the executable needs no C++ shared library at all, so
// -static-libstdc++ takes libstdc++ out of every run's startup (bench/README "Speed"). Should
// the code come to call more of fmt, the linker still finds it in libfmt.so (--as-needed keeps
// the library only then).
#define FMT_HEADER_ONLY 1
#include <fmt/format.h>

namespace gpuplan::detail {
// Odr-uses fmt::vformat so that its (inline, header-only) definition is emitted here.
std::string fmt_runtime_anchor(double v) { return fmt::vformat("{}", fmt::make_format_args(v)); }
}  // namespace gpuplan::detail
