#pragma once
// A compact, read-only YAML tree for large catalogs. yaml-cpp's own nodes cost about 5 KB per
// offer (a 250k-offer sheet took 1.45 GB and 12.6 s); this one is built from yaml-cpp's parser
// events into three flat arrays (about 40 bytes a node) and offers the small part of the
// YAML::Node interface the catalog reader uses. Aliases share the anchored node, as in yaml-cpp.
#include <yaml-cpp/mark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpuplan/error.hpp"

namespace gpuplan::io {

struct YamlTreeData;

class TreeNode {
 public:
  TreeNode() = default;  // undefined: what a missing key gives
  TreeNode(std::shared_ptr<const YamlTreeData> tree, std::uint32_t index) : tree_(std::move(tree)), index_(index) {}

  explicit operator bool() const { return tree_ != nullptr; }
  bool IsMap() const;
  bool IsSequence() const;
  bool IsScalar() const;
  bool IsNull() const;
  std::string Scalar() const;  // "" unless a scalar
  YAML::Mark Mark() const;
  std::size_t size() const;  // entries of a map or sequence
  // The value of the first entry whose key is `key`; undefined when there is none.
  TreeNode operator[](const std::string& key) const;

  // Iteration as in yaml-cpp: a sequence yields its items, a map yields items with .first
  // (the key) and .second (the value).
  struct Item;
  class iterator;
  iterator begin() const;
  iterator end() const;

 private:
  std::shared_ptr<const YamlTreeData> tree_;
  std::uint32_t index_ = 0;
};

struct TreeNode::Item : TreeNode {
  TreeNode first, second;
};

class TreeNode::iterator {
 public:
  iterator(const TreeNode* owner, std::size_t at) : owner_(owner), at_(at) {}
  Item operator*() const;
  iterator& operator++() {
    ++at_;
    return *this;
  }
  bool operator!=(const iterator& o) const { return at_ != o.at_; }

 private:
  const TreeNode* owner_;
  std::size_t at_;
};

struct YamlTree {
  TreeNode root;                   // undefined for an empty document
  std::vector<InputError> errors;  // root is undefined when not empty
};

// Same checks as parse_yaml_document (UTF-8, nesting, one document), then the compact tree.
YamlTree parse_yaml_tree(const std::string& text, const std::string& path, const std::string& what);

}  // namespace gpuplan::io
