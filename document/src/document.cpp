#include "hazardlab/document.hpp"

#include <sstream>

#include "hazardlab/markup_escape.hpp"

namespace hazardlab::doc {

Text& Text::operator+=(const Text& more) {
  spans.insert(spans.end(), more.spans.begin(), more.spans.end());
  return *this;
}

Text operator+(Text a, const Text& b) { return a += b; }

Text code(std::string text) {
  Text t;
  t.spans.push_back({Span::Style::Code, std::move(text)});
  return t;
}

Text strong(std::string text) {
  Text t;
  t.spans.push_back({Span::Style::Strong, std::move(text)});
  return t;
}

namespace {

// Markdown: a line break or a pipe would end a table cell or a list item early.
std::string md_flat(const std::string& text, bool in_cell) {
  std::string out;
  for (char c : text) {
    if (c == '|' && in_cell)
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// How a markup opens and closes each inline style (Span::Style's order), and escapes text.
struct Inline {
  const char* open[3];
  const char* close[3];
  std::string (*escape)(const std::string&);
  std::string operator()(const Text& t) const {
    std::string out;
    for (const Span& s : t.spans) {
      const auto style = static_cast<int>(s.style);
      out += open[style] + escape(s.text) + close[style];
    }
    return out;
  }
};

std::string md_escape(const std::string& text) { return md_flat(text, false); }
std::string md_cell_escape(const std::string& text) { return md_flat(text, true); }
std::string html_escape(const std::string& text) { return escape_markup(text); }

constexpr Inline kMarkdown{{"", "`", "**"}, {"", "`", "**"}, md_escape};
constexpr Inline kMarkdownCell{{"", "`", "**"}, {"", "`", "**"}, md_cell_escape};
constexpr Inline kHtml{{"", "<code>", "<b>"}, {"", "</code>", "</b>"}, html_escape};

// Markdown's spelling of each block.
struct MarkdownOut {
  std::ostringstream out;
  void heading(const Text& t, int level) { out << std::string(static_cast<std::size_t>(level), '#') << ' ' << kMarkdown(t) << "\n\n"; }
  void paragraph(const Text& t, const std::string&) { out << kMarkdown(t) << "\n\n"; }
  void note(const Text& t) { out << "> " << kMarkdown(t) << "\n\n"; }
  void list(const std::vector<Item>& items) {
    for (const Item& i : items) {
      out << "- " << kMarkdown(i.text) << '\n';
      for (const Text& child : i.children) out << "  - " << kMarkdown(child) << '\n';
    }
    out << '\n';
  }
  void folded(const Text& summary, const std::vector<Item>& items) {
    out << "<details><summary>" << kMarkdown(summary) << "</summary>\n\n";
    list(items);
    out << "</details>\n\n";
  }
  void table(const Table& t) {
    out << '|';
    for (const std::string& h : t.headers) out << ' ' << md_flat(h, true) << " |";
    out << "\n|";
    for (std::size_t i = 0; i < t.headers.size(); ++i) out << "---|";
    out << '\n';
    for (const auto& row : t.rows) {
      out << '|';
      for (const Text& cell : row) {
        const std::string text = kMarkdownCell(cell);
        out << ' ' << (text.empty() ? " " : text) << " |";
      }
      out << '\n';
    }
    out << '\n';
  }
  void plot(const Plot&) {}  // drawn in HTML only; its figures are in the text beside it
};

// HTML's spelling of each block.
struct HtmlOut {
  std::ostringstream out;
  void heading(const Text& t, int level) { out << "<h" << level << '>' << kHtml(t) << "</h" << level << ">\n"; }
  void paragraph(const Text& t, const std::string& css_class) {
    out << (css_class.empty() ? std::string("<p>") : "<p class='" + escape_markup(css_class) + "'>") << kHtml(t)
        << "</p>\n";
  }
  void note(const Text& t) { out << "<blockquote>" << kHtml(t) << "</blockquote>\n"; }
  void list(const std::vector<Item>& items) {
    out << "<ul>\n";
    for (const Item& i : items) {
      out << "<li>" << kHtml(i.text);
      if (!i.children.empty()) {
        out << "<ul>";
        for (const Text& child : i.children) out << "<li>" << kHtml(child) << "</li>";
        out << "</ul>";
      }
      out << "</li>\n";
    }
    out << "</ul>\n";
  }
  void folded(const Text& summary, const std::vector<Item>& items) {
    out << "<details><summary>" << kHtml(summary) << "</summary>\n";
    list(items);
    out << "</details>\n";
  }
  void table(const Table& t) {
    out << "<div style='overflow-x:auto'><table>\n<tr>";  // wide tables scroll inside the box
    for (const std::string& h : t.headers) out << "<th>" << escape_markup(h) << "</th>";
    out << "</tr>\n";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      const std::string& row_class = r < t.row_classes.size() ? t.row_classes[r] : std::string();
      out << (row_class.empty() ? std::string("<tr>") : "<tr class='" + escape_markup(row_class) + "'>");
      for (const Text& cell : t.rows[r]) out << "<td>" << kHtml(cell) << "</td>";
      out << "</tr>\n";
    }
    out << "</table></div>\n";
  }
  void plot(const Plot& p) { out << to_svg(p) << '\n'; }
};

// Every block, in order, in one markup.
template <class Markup>
void render(const Document& d, Markup& m) {
  for (const Block& b : d.blocks) {
    switch (b.kind) {
      case Block::Kind::Heading:
        m.heading(b.text, 2);
        break;
      case Block::Kind::Subheading:
        m.heading(b.text, 3);
        break;
      case Block::Kind::Paragraph:
        m.paragraph(b.text, b.css_class);
        break;
      case Block::Kind::Note:
        m.note(b.text);
        break;
      case Block::Kind::List:
        m.list(b.items);
        break;
      case Block::Kind::Folded:
        m.folded(b.text, b.items);
        break;
      case Block::Kind::Table:
        m.table(b.table);
        break;
      case Block::Kind::Plot:
        m.plot(b.plot);
        break;
    }
  }
}

}  // namespace

std::string to_markdown(const Document& d) {
  MarkdownOut m;
  m.out << "# " << md_flat(d.title, false) << "\n\n";
  render(d, m);
  return m.out.str();
}

// The style every page shares: readable from a phone (390 px) to a desktop. Text breaks anywhere rather than
// run past its box (paths, API names), plots scale down to the width, and tables scroll inside their own box.
constexpr const char* kPageStyle =
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}"
    "@media (max-width:600px){body{margin:.8em}}"
    "h1,h2,h3,p,li,blockquote,summary{overflow-wrap:anywhere}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;"
    "vertical-align:top}th{background:#f4f4f4}"
    "svg{max-width:100%;height:auto;margin:.5em 0;border:1px solid #eee}"
    "blockquote{color:#555;margin:1em 0 1em 1em}details{margin:.3em 0}ul{padding-left:1.4em}"
    ".verdict{font-size:1.4em;padding:.4em .8em;display:inline-block}";

std::string to_html(const Document& d) {
  HtmlOut h;
  h.out << "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        << "<meta name='viewport' content='width=device-width, initial-scale=1'>\n<title>" << escape_markup(d.title)
        << "</title>\n<style>\n" << kPageStyle << d.style << "\n</style>\n</head>\n<body>\n<h1>"
        << escape_markup(d.title) << "</h1>\n";
  render(d, h);
  h.out << "</body>\n</html>\n";
  return h.out.str();
}

}  // namespace hazardlab::doc
