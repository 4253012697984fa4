#pragma once
// A report for people, laid out once as plain content (headings, paragraphs, lists, tables, plots)
// and then rendered in Markdown or HTML (document/src/document.cpp). The fleet report, every GPU's report
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
  Text(std::string plain) {
    spans.push_back({Span::Style::Plain, std::move(plain)});
  }                                                      // NOLINT: plain text reads as Text
  Text(const char* plain) : Text(std::string(plain)) {}  // NOLINT
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

// A line chart, as content: the axes, the series and their points, not the drawing. HTML draws it
// as inline SVG (plot.cpp, the one place a chart is drawn); Markdown leaves it out, since a table
// or text beside every plot holds its figures.
struct Plot {
  // How an axis places a value: as it is, by its base-2 logarithm (sizes), or by log10(1 + x), a
  // logarithmic axis that still shows 0 (delays from none up).
  enum class Scale { Linear, Log2, Log1p };
  struct Tick {
    double at;
    std::string label;
  };
  struct Point {
    double x, y;
    std::string tip;  // the point's tooltip
  };
  struct Series {
    std::string name;  // in the legend
    std::vector<Point> points;
    std::string colour;  // "" for the palette's next; a kind shown in several plots keeps one colour
    bool dots = true;    // each point drawn with its tooltip; off for a dense series (a soak's samples)
  };
  struct Marker {  // a hollow diamond off the lines, such as a demo measured another way
    double x, y;
    std::string tip;
  };
  struct Rule {  // a dashed horizontal line, such as a limit
    double y;
    std::string label;
  };

  std::string title;        // drawn above the chart; "" for none
  std::string description;  // what the chart shows, for screen readers
  std::string x_label;
  Scale x_scale = Scale::Linear;
  double x_min = 0, x_max = 1, y_max = 1;  // the y axis starts at 0
  std::vector<Tick> x_ticks, y_ticks;
  std::vector<Series> series;
  std::vector<Marker> markers;
  std::vector<Rule> rules;
  double width = 640, height = 320;
};
// The chart as a self-contained SVG element, every text escaped.
std::string to_svg(const Plot& p);

struct Block {
  enum class Kind { Heading, Subheading, Paragraph, Note, List, Table, Folded, Plot } kind = Kind::Paragraph;
  Text text;                // a heading, a paragraph, a note, or a folded list's summary
  std::vector<Item> items;  // a list, or what a folded list holds
  Table table;
  Plot plot;              // a chart, drawn for HTML only: a table or text beside it holds its figures
  std::string css_class;  // HTML: a paragraph's class
};

struct Document {
  std::string title;
  std::string style;  // HTML: the page's own CSS (its classes), after the style every page shares
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
  void plot(Plot p) {
    if (!p.series.empty()) blocks.push_back({Block::Kind::Plot, {}, {}, {}, std::move(p), {}});
  }
};

std::string to_markdown(const Document& d);
// A self-contained page: no script, nothing loaded from elsewhere; every text escaped.
std::string to_html(const Document& d);

}  // namespace hazardlab::doc
