#pragma once
// The shipped catalogs as the build compiles them in: a flat binary image of a Catalog that
// decodes without parsing (lengths and native numbers, read in order). Writer and reader walk
// one field list (catalog_blob.cpp), so they cannot disagree; the build step writes the image
// with the same host that runs it, so native byte order is safe.
#include <cstddef>
#include <string>

#include "gpuplan/catalog.hpp"

namespace gpuplan::io {

// Every field of every GPU, model, provider, offer and the FX table.
std::string catalog_to_blob(const Catalog& c);

// The catalog back; throws std::logic_error when the image is not one this reader wrote
// (a stale generated file), never reads past `size`.
Catalog catalog_from_blob(const char* data, std::size_t size);

}  // namespace gpuplan::io
