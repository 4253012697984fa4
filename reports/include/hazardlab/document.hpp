#pragma once
// A report for people, laid out once as plain content (headings, paragraphs, lists, tables, plots)
// and then rendered in Markdown or HTML (reports/src/document.cpp). The fleet report, every GPU's report
// and `hazardlab check`'s report are built this way: what a report says is decided in one place, how each
// markup spells it in another.
#include <string>
#include <vector>

namespace hazardlab::doc {

// Inline text: runs of plain, `code` or **strong** text.
struct Span {
  enum class Style { Plain, Code, Strong } style = Style::Plain;
  std::string text;
};
struct Text {
  std::vector<Span> spans;
  Text() = default;
  Text(std::string plain) { spans.push_back({Span::Style::Plain, std::move(plain)}); }  // NOLINT: plain text reads as Text
  Text(const char* plain) : Text(std::string(plain)) {}                              // NOLINT
  Text& operator+=(const Text& more);
  bool empty() const noexcept { return spans.empty(); }
};
Text operator+(Text a, const Text& b);
Text code(std::string text);
Text strong(std::string text);

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<Text>> rows;
  std::vector<std::string> row_classes;  // HTML: the row's class (its colour); "" for none
  void add(std::vector<Text> row, std::string row_class = "") {
    rows.push_back(std::move(row));
    row_classes.push_back(std::move(row_class));
  }
};

struct Item {
  Text text;
  std::vector<Text> children;  // one level of nested points
};

struct Block {
  enum class Kind { Heading, Subheading, Paragraph, Note, List, Table, Folded, Plot } kind = Kind::Paragraph;
  Text text;                // a heading, a paragraph, a note, or a folded list's summary
  std::vector<Item> items;  // a list, or what a folded list holds
  Table table;
  std::string svg;          // a plot, drawn for HTML only: a table or text beside it holds its figures
  std::string css_class;    // HTML: a paragraph's class
};

struct Document {
  std::string title;
  std::string style;  // HTML: the page's CSS
  std::vector<Block> blocks;

  void heading(Text t) { blocks.push_back({Block::Kind::Heading, std::move(t), {}, {}, {}, {}}); }
  void subheading(Text t) { blocks.push_back({Block::Kind::Subheading, std::move(t), {}, {}, {}, {}}); }
  void paragraph(Text t, std::string css_class = "") {
    blocks.push_back({Block::Kind::Paragraph, std::move(t), {}, {}, {}, std::move(css_class)});
  }
  void note(Text t) { blocks.push_back({Block::Kind::Note, std::move(t), {}, {}, {}, {}}); }  // a warning aside
  void list(std::vector<Item> items) { blocks.push_back({Block::Kind::List, {}, std::move(items), {}, {}, {}}); }
  void folded(Text summary, std::vector<Item> items) {
    blocks.push_back({Block::Kind::Folded, std::move(summary), std::move(items), {}, {}, {}});
  }
  void table(Table t) { blocks.push_back({Block::Kind::Table, {}, {}, std::move(t), {}, {}}); }
  void plot(std::string svg) {
    if (!svg.empty()) blocks.push_back({Block::Kind::Plot, {}, {}, {}, std::move(svg), {}});
  }
};

std::string to_markdown(const Document& d);
// A self-contained page: no script, nothing loaded from elsewhere; every text escaped.
std::string to_html(const Document& d);

}  // namespace hazardlab::doc
