#include "document.hpp"

#include <sstream>

#include "markup_escape.hpp"

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

std::string md(const Text& t, bool in_cell = false) {
  std::string out;
  for (const Span& s : t.spans) {
    const std::string text = md_flat(s.text, in_cell);
    switch (s.style) {
      case Span::Style::Plain:
        out += text;
        break;
      case Span::Style::Code:
        out += '`' + text + '`';
        break;
      case Span::Style::Strong:
        out += "**" + text + "**";
        break;
    }
  }
  return out;
}

std::string html(const Text& t) {
  std::string out;
  for (const Span& s : t.spans) {
    const std::string text = escape_markup(s.text);
    switch (s.style) {
      case Span::Style::Plain:
        out += text;
        break;
      case Span::Style::Code:
        out += "<code>" + text + "</code>";
        break;
      case Span::Style::Strong:
        out += "<b>" + text + "</b>";
        break;
    }
  }
  return out;
}

void md_table(std::ostringstream& out, const Table& t) {
  out << '|';
  for (const std::string& h : t.headers) out << ' ' << md_flat(h, true) << " |";
  out << "\n|";
  for (std::size_t i = 0; i < t.headers.size(); ++i) out << "---|";
  out << '\n';
  for (const auto& row : t.rows) {
    out << '|';
    for (const Text& cell : row) {
      const std::string text = md(cell, true);
      out << ' ' << (text.empty() ? " " : text) << " |";
    }
    out << '\n';
  }
  out << '\n';
}

void md_items(std::ostringstream& out, const std::vector<Item>& items) {
  for (const Item& i : items) {
    out << "- " << md(i.text) << '\n';
    for (const Text& child : i.children) out << "  - " << md(child) << '\n';
  }
  out << '\n';
}

void html_items(std::ostringstream& out, const std::vector<Item>& items) {
  out << "<ul>\n";
  for (const Item& i : items) {
    out << "<li>" << html(i.text);
    if (!i.children.empty()) {
      out << "<ul>";
      for (const Text& child : i.children) out << "<li>" << html(child) << "</li>";
      out << "</ul>";
    }
    out << "</li>\n";
  }
  out << "</ul>\n";
}

void html_table(std::ostringstream& out, const Table& t) {
  out << "<div style='overflow-x:auto'><table>\n<tr>";  // wide tables scroll inside the box
  for (const std::string& h : t.headers) out << "<th>" << escape_markup(h) << "</th>";
  out << "</tr>\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string& row_class = r < t.row_classes.size() ? t.row_classes[r] : std::string();
    out << (row_class.empty() ? std::string("<tr>") : "<tr class='" + escape_markup(row_class) + "'>");
    for (const Text& cell : t.rows[r]) out << "<td>" << html(cell) << "</td>";
    out << "</tr>\n";
  }
  out << "</table></div>\n";
}

}  // namespace

std::string to_markdown(const Document& d) {
  std::ostringstream out;
  out << "# " << md_flat(d.title, false) << "\n\n";
  for (const Block& b : d.blocks) {
    switch (b.kind) {
      case Block::Kind::Heading:
        out << "## " << md(b.text) << "\n\n";
        break;
      case Block::Kind::Subheading:
        out << "### " << md(b.text) << "\n\n";
        break;
      case Block::Kind::Paragraph:
        out << md(b.text) << "\n\n";
        break;
      case Block::Kind::Note:
        out << "> " << md(b.text) << "\n\n";
        break;
      case Block::Kind::List:
        md_items(out, b.items);
        break;
      case Block::Kind::Folded:
        out << "<details><summary>" << md(b.text) << "</summary>\n\n";
        md_items(out, b.items);
        out << "</details>\n\n";
        break;
      case Block::Kind::Table:
        md_table(out, b.table);
        break;
      case Block::Kind::Plot:
        break;  // drawn in HTML only; its figures are in the text beside it
    }
  }
  return out.str();
}

std::string to_html(const Document& d) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n<title>" << escape_markup(d.title)
      << "</title>\n<style>\n" << d.style << "\n</style>\n</head>\n<body>\n<h1>" << escape_markup(d.title) << "</h1>\n";
  for (const Block& b : d.blocks) {
    switch (b.kind) {
      case Block::Kind::Heading:
        out << "<h2>" << html(b.text) << "</h2>\n";
        break;
      case Block::Kind::Subheading:
        out << "<h3>" << html(b.text) << "</h3>\n";
        break;
      case Block::Kind::Paragraph:
        out << (b.css_class.empty() ? std::string("<p>") : "<p class='" + escape_markup(b.css_class) + "'>")
            << html(b.text) << "</p>\n";
        break;
      case Block::Kind::Note:
        out << "<blockquote>" << html(b.text) << "</blockquote>\n";
        break;
      case Block::Kind::List:
        html_items(out, b.items);
        break;
      case Block::Kind::Folded:
        out << "<details><summary>" << html(b.text) << "</summary>\n";
        html_items(out, b.items);
        out << "</details>\n";
        break;
      case Block::Kind::Table:
        html_table(out, b.table);
        break;
      case Block::Kind::Plot:
        out << b.svg << '\n';  // drawn by this program: its text already escaped
        break;
    }
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace hazardlab::doc
