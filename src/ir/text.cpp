#include "ir/text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace drtriton {

std::string print_node(const Graph& graph, const Node& node) {
  const OpSchema& schema = node.schema();
  std::string s = schema.name + "(";
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    s += (i ? ", %" : "%") + graph.value(node.inputs[i]).name;
  }
  s += ")";
  std::string attrs;
  if (!node.module.empty()) attrs = "module=\"" + node.module + "\"";
  for (const AttrSpec& spec : schema.attrs) {
    if (is_default_attr(spec, node.attrs)) continue;
    attrs +=
        (attrs.empty() ? "" : ", ") + spec.name + "=" + attr_to_string(node.attrs.at(spec.name));
  }
  if (!attrs.empty()) s += " {" + attrs + "}";
  return s;
}

std::string print_graph(const Graph& graph) {
  std::string s;
  auto declare = [&](const char* keyword, ValueId v) {
    const Value& value = graph.value(v);
    s += std::string(keyword) + " %" + value.name + " : " + to_string(value.type);
    if (value.init == Init::Positive) s += " {init=\"positive\"}";
    s += "\n";
  };
  for (ValueId v : graph.inputs()) declare("input", v);
  for (ValueId v : graph.params()) declare("param", v);
  for (const Node& node : graph.nodes()) {
    const Value& out = graph.value(node.output);
    s += "%" + out.name + " : " + to_string(out.type) + " = " + print_node(graph, node) + "\n";
  }
  if (!graph.outputs().empty()) {
    s += "return";
    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      s += (i ? ", %" : " %") + graph.value(graph.outputs()[i]).name;
    }
    s += "\n";
  }
  return s;
}

namespace {

// A cursor over one line. Errors carry only the message; the caller adds file:line.
class LineParser {
 public:
  explicit LineParser(std::string_view line) : s_(line) {}

  // Skip blanks and remember where the next token starts: errors point there.
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    token_ = pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= s_.size();
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c, const std::string& what) {
    if (!accept(c)) fail(std::string("expected '") + c + "' " + what);
  }
  std::string word() {
    skip_space();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '_' || s_[pos_] == '.')) {
      ++pos_;
    }
    return std::string(s_.substr(start, pos_ - start));
  }
  std::string value_name() {
    skip_space();
    size_t start = pos_;
    if (!accept('%')) fail("expected a value name such as %x");
    std::string name = word();
    token_ = start;
    if (name.empty() || name.find('.') != std::string::npos)
      fail("expected a value name after '%'");
    return name;
  }
  TensorType type() {
    std::string dt = word();
    TensorType t;
    if (!parse_dtype(dt, &t.dtype)) {
      fail("unknown dtype '" + dt + "' (expected f32, f16, bf16, f64, i64, i32 or bool)");
    }
    expect('[', "to open the shape");
    if (!accept(']')) {
      do t.shape.push_back(integer());
      while (accept(','));
      expect(']', "to close the shape");
    }
    return t;
  }
  int64_t integer() {
    skip_space();
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
    if (ec != std::errc()) fail("expected an integer");
    pos_ = end - s_.data();
    return v;
  }
  AttrValue attr_value() {
    skip_space();
    if (accept('"')) {
      size_t end = s_.find('"', pos_);
      if (end == std::string_view::npos) fail("unterminated string");
      std::string v(s_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return v;
    }
    if (accept('[')) {
      std::vector<int64_t> v;
      if (!accept(']')) {
        do v.push_back(integer());
        while (accept(','));
        expect(']', "to close the list");
      }
      return v;
    }
    size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    while (
        pos_ < s_.size() &&
        (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
         ((s_[pos_] == '-' || s_[pos_] == '+') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    std::string tok(s_.substr(start, pos_ - start));
    if (tok == "true") return true;
    if (tok == "false") return false;
    if (tok == "inf" || tok == "+inf") return std::numeric_limits<double>::infinity();
    if (tok == "-inf") return -std::numeric_limits<double>::infinity();
    if (tok == "nan") return std::numeric_limits<double>::quiet_NaN();  // a None (attr.h)
    if (tok.empty()) fail("expected an attribute value");
    const char* b = tok.data() + (tok[0] == '+');
    const char* e = tok.data() + tok.size();
    if (tok.find_first_of(".eE") == std::string::npos) {
      int64_t v;
      auto [end, ec] = std::from_chars(b, e, v);
      if (ec == std::errc() && end == e) return v;
    } else {
      double v;
      auto [end, ec] = std::from_chars(b, e, v);
      if (ec == std::errc() && end == e) return v;
    }
    fail("'" + tok + "' is not a value (int, float, true/false, [ints] or \"string\")");
  }
  size_t token_start() const { return token_; }
  [[noreturn]] void fail(const std::string& message) { fail_at(token_, message); }
  [[noreturn]] void fail_at(size_t column, const std::string& message) {
    throw IrError("column " + std::to_string(column + 1) + ": " + message);
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  size_t token_ = 0;
};

std::string strip_comment(const std::string& line) {
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') in_string = !in_string;
    if (line[i] == '#' && !in_string) return line.substr(0, i);
  }
  return line;
}

void parse_line(Graph& g, LineParser& p) {
  auto lookup = [&](const std::string& name) {
    ValueId v = g.find_value(name);
    if (v < 0) p.fail("%" + name + " is not defined before this line");
    return v;
  };
  p.skip_space();
  if (!p.accept('%')) {
    std::string keyword = p.word();
    if (keyword == "input" || keyword == "param") {
      std::string name = p.value_name();
      p.expect(':', "before the type");
      TensorType type = p.type();
      Init init = Init::Normal;
      if (p.accept('{')) {
        if (p.word() != "init") p.fail("the only attribute of an input or param is init");
        p.expect('=', "after init");
        AttrValue v = p.attr_value();
        if (v == AttrValue(std::string("positive"))) {
          init = Init::Positive;
        } else if (v != AttrValue(std::string("normal"))) {
          p.fail("init must be \"normal\" or \"positive\"");
        }
        p.expect('}', "to close the attributes");
      }
      if (!p.at_end()) p.fail("unexpected text after the type");
      keyword == "input" ? g.add_input(name, type, init) : g.add_param(name, type, init);
      return;
    }
    if (keyword == "return") {
      if (!g.outputs().empty()) p.fail("a second return");
      std::vector<ValueId> outs;
      do outs.push_back(lookup(p.value_name()));
      while (p.accept(','));
      if (!p.at_end()) p.fail("unexpected text after the return values");
      g.set_outputs(outs);
      return;
    }
    p.fail("expected 'input', 'param', 'return' or '%name = op(...)', got '" + keyword + "'");
  }
  if (!g.outputs().empty()) p.fail("a node after the return");
  std::string name = p.word();
  if (name.empty()) p.fail("expected a value name after '%'");
  std::optional<TensorType> declared;
  if (p.accept(':')) declared = p.type();
  p.expect('=', "after the value name");
  std::string op_name = p.word();
  const OpSchema* schema = find_op(op_name);
  if (!schema) p.fail("unknown operator '" + op_name + "' (drtriton ops lists them)");
  p.expect('(', "after the operator name");
  std::vector<ValueId> inputs;
  if (!p.accept(')')) {
    do inputs.push_back(lookup(p.value_name()));
    while (p.accept(','));
    p.expect(')', "to close the inputs");
  }
  Attrs attrs;
  std::string module;
  if (p.accept('{')) {
    if (!p.accept('}')) {
      do {
        std::string key = p.word();
        size_t key_start = p.token_start();
        if (key.empty()) p.fail("expected an attribute name");
        p.expect('=', "after attribute '" + key + "'");
        AttrValue value = p.attr_value();
        if (attrs.count(key) || (key == "module" && !module.empty())) {
          p.fail_at(key_start, "attribute '" + key + "' given twice");
        }
        if (key == "module") {
          if (!std::holds_alternative<std::string>(value)) p.fail("module must be a \"string\"");
          module = std::get<std::string>(value);
        } else {
          attrs[key] = value;
        }
      } while (p.accept(','));
      p.expect('}', "to close the attributes");
    }
  }
  if (!p.at_end()) p.fail("unexpected text after the node");
  ValueId id = g.add_node(schema->op, inputs, attrs, module, name);
  if (declared && *declared != g.value(id).type) {
    throw IrError("%" + name + " is declared " + to_string(*declared) + " but " + op_name +
                  " gives " + to_string(g.value(id).type));
  }
}

}  // namespace

Graph parse_graph(const std::string& text, const std::string& source) {
  Graph g;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string code = strip_comment(line);
    LineParser p(code);
    if (p.at_end()) continue;
    try {
      parse_line(g, p);
    } catch (const IrError& e) {
      throw IrError(source + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  if (g.outputs().empty()) throw IrError(source + ": no 'return' line");
  return g;
}

}  // namespace drtriton
