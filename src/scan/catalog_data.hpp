// The catalog files embedded at build time (cmake/EmbedCatalog.cmake writes catalog_data.cpp
// from patches/catalog/*/*.json). Internal to src/scan.
#pragma once

#include <cstddef>
#include <string_view>

namespace sm120check::embedded {

/// One embedded file: its path relative to patches/catalog ("flashinfer/ID.json") and bytes.
struct CatalogFileData {
  std::string_view path;
  std::string_view content;
};

/// Every embedded file, sorted by path.
extern const CatalogFileData kCatalogFiles[];
extern const std::size_t kCatalogFileCount;

}  // namespace sm120check::embedded
