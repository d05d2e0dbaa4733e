#include "io/text/yaml_tree.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <sstream>

#include "io/text/yaml_document.hpp"

namespace gpuplan::io {

enum class Kind : std::uint8_t { null, scalar, sequence, map };

struct Slot {
  Kind kind = Kind::null;
  std::int32_t line = 0, column = 0;
  std::uint32_t first = 0;  // scalar: offset in `text`; containers: offset in `children`
  std::uint32_t count = 0;  // scalar: length; sequence: items; map: keys + values
};

struct YamlTreeData {
  std::vector<Slot> slots;
  std::vector<std::uint32_t> children;
  std::string text;  // every scalar, back to back
};

namespace {

class Builder : public YAML::EventHandler {
 public:
  explicit Builder(YamlTreeData& d) : d_(d) {}
  std::uint32_t root = 0;
  bool has_root = false;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t a) override { add(make(Kind::null, m), a); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t a) override {
    const auto it = anchors_.find(a);
    add(it == anchors_.end() ? make(Kind::null, YAML::Mark()) : it->second, 0);
  }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a, const std::string& value) override {
    const std::uint32_t i = make(Kind::scalar, m);
    d_.slots[i].first = static_cast<std::uint32_t>(d_.text.size());
    d_.slots[i].count = static_cast<std::uint32_t>(value.size());
    d_.text += value;
    add(i, a);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(make(Kind::sequence, m), a);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(make(Kind::map, m), a);
  }
  void OnMapEnd() override { close(); }

 private:
  std::uint32_t make(Kind k, const YAML::Mark& m) {
    Slot s;
    s.kind = k;
    s.line = m.line;
    s.column = m.column;
    d_.slots.push_back(s);
    return static_cast<std::uint32_t>(d_.slots.size() - 1);
  }
  void add(std::uint32_t i, YAML::anchor_t a) {
    if (a != 0) anchors_[a] = i;
    if (open_.empty()) {
      root = i;
      has_root = true;
    } else {
      open_.back().second.push_back(i);
    }
  }
  void open(std::uint32_t i, YAML::anchor_t a) {
    if (a != 0) anchors_[a] = i;
    open_.emplace_back(i, std::vector<std::uint32_t>());
  }
  // Children go to the shared array only when their container closes, so they sit together.
  void close() {
    auto [i, kids] = std::move(open_.back());
    open_.pop_back();
    d_.slots[i].first = static_cast<std::uint32_t>(d_.children.size());
    d_.slots[i].count = static_cast<std::uint32_t>(kids.size());
    d_.children.insert(d_.children.end(), kids.begin(), kids.end());
    if (open_.empty()) {
      root = i;
      has_root = true;
    } else {
      open_.back().second.push_back(i);
    }
  }

  YamlTreeData& d_;
  std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> open_;
  std::map<YAML::anchor_t, std::uint32_t> anchors_;
};

}  // namespace

bool TreeNode::IsMap() const { return tree_ && tree_->slots[index_].kind == Kind::map; }
bool TreeNode::IsSequence() const { return tree_ && tree_->slots[index_].kind == Kind::sequence; }
bool TreeNode::IsScalar() const { return tree_ && tree_->slots[index_].kind == Kind::scalar; }
bool TreeNode::IsNull() const { return tree_ && tree_->slots[index_].kind == Kind::null; }

std::string TreeNode::Scalar() const {
  if (!IsScalar()) return "";
  const Slot& s = tree_->slots[index_];
  return tree_->text.substr(s.first, s.count);
}

YAML::Mark TreeNode::Mark() const {
  YAML::Mark m = YAML::Mark::null_mark();
  if (tree_) {
    m.line = tree_->slots[index_].line;
    m.column = tree_->slots[index_].column;
  }
  return m;
}

std::size_t TreeNode::size() const {
  if (IsMap()) return tree_->slots[index_].count / 2;
  if (IsSequence()) return tree_->slots[index_].count;
  return 0;
}

TreeNode TreeNode::operator[](const std::string& key) const {
  if (!IsMap()) return TreeNode();
  const Slot& s = tree_->slots[index_];
  for (std::uint32_t k = 0; k + 1 < s.count; k += 2) {
    const Slot& ks = tree_->slots[tree_->children[s.first + k]];
    if (ks.kind == Kind::scalar && ks.count == key.size() && tree_->text.compare(ks.first, ks.count, key) == 0)
      return TreeNode(tree_, tree_->children[s.first + k + 1]);
  }
  return TreeNode();
}

TreeNode::iterator TreeNode::begin() const { return iterator(this, 0); }
TreeNode::iterator TreeNode::end() const { return iterator(this, size()); }

TreeNode::Item TreeNode::iterator::operator*() const {
  const Slot& s = owner_->tree_->slots[owner_->index_];
  const auto& kids = owner_->tree_->children;
  Item item;
  if (s.kind == Kind::map) {
    item.first = TreeNode(owner_->tree_, kids[s.first + 2 * at_]);
    item.second = TreeNode(owner_->tree_, kids[s.first + 2 * at_ + 1]);
  } else {
    static_cast<TreeNode&>(item) = TreeNode(owner_->tree_, kids[s.first + at_]);
  }
  return item;
}

YamlTree parse_yaml_tree(const std::string& text, const std::string& path, const std::string& what) {
  YamlTree out;
  std::vector<InputError> errors = yaml_text_problems(text, path, what);
  if (!errors.empty()) {
    out.errors = std::move(errors);
    return out;
  }
  auto data = std::make_shared<YamlTreeData>();
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    Builder b(*data);
    parser.HandleNextDocument(b);
    YamlTreeData ignored;
    Builder second(ignored);
    if (parser.HandleNextDocument(second)) {
      out.errors.emplace_back(SourceLocation{path, second_document_line(text), 1}, "",
                              "a second YAML document (after '---'): a " + what + " file holds one document");
      return out;
    }
    if (b.has_root) out.root = TreeNode(data, b.root);
  } catch (const YAML::Exception& e) {
    out.errors.emplace_back(SourceLocation{path, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0},
                            "", "invalid YAML: " + e.msg);
  }
  return out;
}

}  // namespace gpuplan::io
