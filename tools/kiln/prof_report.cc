// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/prof_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;

// One CSV record (RFC 4180: quoted fields may hold commas, quotes and newlines).
bool NextRecord(std::istream& in, std::vector<std::string>* fields) {
  fields->clear();
  std::string field;
  bool quoted = false, any = false;
  char c;
  while (in.get(c)) {
    any = true;
    if (quoted) {
      if (c == '"') {
        if (in.peek() == '"') {
          in.get(c);
          field += '"';
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!any) return false;
  fields->push_back(std::move(field));
  return true;
}

bool ToDouble(const std::string& s, double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end != nullptr && *end == '\0' && std::isfinite(*v);
}

std::string FirstFile(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".csv") found.push_back(name);
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? "" : (dir / found.front()).string();
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Shorten(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return s.substr(0, width - 3) + "...";
}

// The ONNX nodes of an operator for the table: the first, and how many more were fused in.
std::string NodesCell(const std::string& nodes) {
  const size_t semi = nodes.find(';');
  if (semi == std::string::npos) return Shorten(nodes, 52);
  size_t more = 0;
  for (char c : nodes) more += c == ';' ? 1 : 0;
  return Shorten(nodes.substr(0, semi), 52) + "(+" + std::to_string(more) + ")";
}

std::string Xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
    }
  }
  return out;
}

// A bar's colour: light to dark blue as the operator gets closer to the device's peak
// (grey when unknown).
std::string PeakColour(double pct) {
  if (pct < 0) return "#b8b8b8";
  const double t = std::clamp(std::sqrt(std::clamp(pct, 0.0, 100.0) / 100.0), 0.0, 1.0);
  const int from[3] = {0x9e, 0xca, 0xe1}, to[3] = {0x08, 0x30, 0x6b};
  char buf[16];
  int rgb[3];
  for (int i = 0; i < 3; ++i)
    rgb[i] = static_cast<int>(std::lround(from[i] + (to[i] - from[i]) * t));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

// A "nice" axis maximum (1, 2 or 5 times a power of ten) at or above `v`.
double NiceCeil(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.2, 1.6, 2.0, 2.4, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (m * p >= v * 0.9999) return m * p;
  }
  return 10 * p;
}

std::string Us(double us) {
  if (us == 0) return "0";
  if (us >= 100000) return Fixed(us / 1000.0, 0) + " ms";
  if (us >= 10000) return Fixed(us / 1000.0, 1) + " ms";
  if (us >= 100) return Fixed(us, 0) + " \xC2\xB5s";
  return Fixed(us, 1) + " \xC2\xB5s";
}

}  // namespace

bool WriteTextFile(const std::string& path, const std::string& text, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

std::vector<std::string> ListProfileFolders(const std::string& dir, long pid) {
  std::vector<std::string> found;
  std::error_code ec;
  char want[16] = {0};
  if (pid >= 0) std::snprintf(want, sizeof want, "PROF_%06ld_", pid % 1000000);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("PROF_", 0) != 0 || !e.is_directory(ec)) continue;
    if (pid >= 0 && name.rfind(want, 0) != 0) continue;
    found.push_back(e.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

bool ReadProfileSummary(const std::string& folder, ProfileSummary* out, std::string* error) {
  *out = ProfileSummary{};
  out->folder = folder;
  const std::string csv = FirstFile(fs::path(folder) / "summary", "op_summary_");
  if (csv.empty()) {
    *error = "no summary/op_summary_*.csv in '" + folder + "'";
    return false;
  }
  std::ifstream in(csv, std::ios::binary);
  std::vector<std::string> header, row;
  if (!in || !NextRecord(in, &header)) {
    *error = "cannot read '" + csv + "'";
    return false;
  }
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  const char* needed[] = {"Model Name", "Model ID",    "Infer ID",   "Op Name",
                          "ONNX Nodes", "OP Type",     "Body Depth", "Task Duration(us)",
                          "FLOPs",      "Peak GFLOP/s"};
  for (const char* n : needed) {
    if (!col.count(n)) {
      *error = "'" + csv + "' has no \"" + n + "\" column (not a Kiln op_summary CSV?)";
      return false;
    }
  }
  auto at = [&](const char* n) -> const std::string& { return row[col[n]]; };
  std::map<std::pair<std::string, std::string>, TopOp> ops;
  std::set<std::pair<std::string, std::string>> executions;
  size_t line = 1;
  while (NextRecord(in, &row)) {
    ++line;
    if (row.size() == 1 && row[0].empty()) continue;
    if (row.size() != header.size()) {
      *error = "'" + csv + "' record " + std::to_string(line) + " has " +
               std::to_string(row.size()) + " fields, the header " + std::to_string(header.size());
      return false;
    }
    double depth = 0, dur = 0, flops = 0, peak = 0;
    if (!ToDouble(at("Task Duration(us)"), &dur)) {
      *error = "'" + csv + "' record " + std::to_string(line) + ": bad Task Duration(us) '" +
               at("Task Duration(us)") + "'";
      return false;
    }
    if (ToDouble(at("Peak GFLOP/s"), &peak) && peak > 0) out->peak_gflops = peak;
    // A body's nodes (If/Loop) are inside their parent's time already.
    if (ToDouble(at("Body Depth"), &depth) && depth != 0) continue;
    executions.insert({at("Model ID"), at("Infer ID")});
    TopOp& op = ops[{at("Model Name"), at("Op Name")}];
    if (op.count == 0) {
      op.model = at("Model Name");
      op.name = at("Op Name");
      op.type = at("OP Type");
      op.onnx_nodes = at("ONNX Nodes");
    }
    ++op.count;
    op.total_us += dur;
    out->op_time_us += dur;
    if (ToDouble(at("FLOPs"), &flops) && op.gflops != -2) {
      op.flops += static_cast<long long>(flops);
      op.gflops = 0;
    } else {
      op.gflops = -2;  // unknown for at least one execution
    }
  }
  for (auto& [key, op] : ops) {
    op.mean_us = op.total_us / op.count;
    op.time_pct = out->op_time_us > 0 ? 100.0 * op.total_us / out->op_time_us : 0;
    if (op.gflops == 0 && op.total_us > 0) {
      op.gflops = static_cast<double>(op.flops) / (op.total_us * 1000.0);
      if (out->peak_gflops > 0) op.peak_pct = 100.0 * op.gflops / out->peak_gflops;
    } else {
      op.gflops = -1;
    }
    out->ops.push_back(op);
  }
  std::stable_sort(out->ops.begin(), out->ops.end(),
                   [](const TopOp& a, const TopOp& b) { return a.total_us > b.total_us; });
  out->executions = static_cast<int>(executions.size());
  out->operators = static_cast<int>(out->ops.size());
  // The device and its peak, as the profiler measured them (info.json).
  std::ifstream info_in(fs::path(folder) / "info.json");
  if (info_in) {
    nlohmann::json info = nlohmann::json::parse(info_in, nullptr, false);
    if (info.is_object() && info.contains("devices") && info["devices"].is_array() &&
        !info["devices"].empty() && info["devices"][0].is_object()) {
      const auto& d = info["devices"][0];
      out->device = std::to_string(d.value("id", 0)) + ": " + d.value("name", std::string("?"));
      if (out->peak_gflops <= 0) out->peak_gflops = d.value("peak_gflops_fp32", 0.0);
    }
  }
  return true;
}

void PrintTopOps(const ProfileSummary& s, size_t top, std::FILE* out) {
  const size_t n = std::min(top, s.ops.size());
  std::set<std::string> models;
  for (const TopOp& op : s.ops) models.insert(op.model);
  std::string model_text;
  for (const std::string& m : models) model_text += (model_text.empty() ? "" : ", ") + m;
  std::fprintf(out, "Top %zu of %d operators by time (model %s; %d execution%s, %s in operators)\n",
               n, s.operators, model_text.empty() ? "-" : model_text.c_str(), s.executions,
               s.executions == 1 ? "" : "s", Us(s.op_time_us).c_str());
  std::fprintf(out, "Device %s; fp32 peak %s\n", s.device.empty() ? "?" : s.device.c_str(),
               s.peak_gflops > 0 ? (Fixed(s.peak_gflops, 1) + " GFLOP/s").c_str() : "unknown");
  // Several models (an application may run more than one): each row says which.
  const bool many = models.size() > 1;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "Op Name", "OP Type", "ONNX Nodes", "Count", "Total(us)", "Mean(us)",
                  "Time(%)", "GFLOP/s", "Peak(%)"});
  if (many) rows[0].push_back("Model");
  for (size_t i = 0; i < n; ++i) {
    const TopOp& op = s.ops[i];
    rows.push_back({std::to_string(i + 1), Shorten(op.name, 52), Shorten(op.type, 20),
                    NodesCell(op.onnx_nodes), std::to_string(op.count), Fixed(op.total_us, 1),
                    Fixed(op.mean_us, 1), Fixed(op.time_pct, 1),
                    op.gflops >= 0 ? Fixed(op.gflops, 1) : "-",
                    op.peak_pct >= 0 ? Fixed(op.peak_pct, 1) : "-"});
    if (many) rows.back().push_back(Shorten(op.model, 32));
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      const bool left = (c >= 1 && c <= 3) || c == 10;  // names left, numbers right
      const std::string pad(width[c] - r[c].size(), ' ');
      line += (c ? "  " : "") + (left ? r[c] + pad : pad + r[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::fprintf(out, "%s\n", line.c_str());
  }
}

std::string TopOpsSvg(const ProfileSummary& s, size_t top) {
  const size_t n = std::min(top, s.ops.size());
  std::set<std::string> models;
  for (const TopOp& op : s.ops) models.insert(op.model);
  std::vector<std::string> labels;
  size_t longest = 10;
  for (size_t i = 0; i < n; ++i) {
    labels.push_back(Shorten(s.ops[i].name, 52) + " (" + Shorten(s.ops[i].type, 16) +
                     (models.size() > 1 ? ", " + Shorten(s.ops[i].model, 24) : "") + ")");
    longest = std::max(longest, labels.back().size());
  }
  const int row_h = 26, bar_h = 18, top_margin = 78, bottom_margin = 76;
  const int label_w = static_cast<int>(longest) * 7 + 24;
  const int plot_w = 520, value_w = 300;
  const int width = label_w + plot_w + value_w;
  const int height = top_margin + static_cast<int>(n) * row_h + bottom_margin;
  const double axis_max = NiceCeil(n ? s.ops[0].total_us : 1);
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"DejaVu Sans, Helvetica, "
    << "Arial, sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  std::string model_text;
  for (const std::string& m : models) model_text += (model_text.empty() ? "" : ", ") + m;
  o << "<text x=\"16\" y=\"26\" font-size=\"16\" font-weight=\"bold\" fill=\"#222\">"
    << Xml("Top " + std::to_string(n) +
           " operators by time: " + (model_text.empty() ? std::string("-") : model_text))
    << "</text>\n";
  std::string sub = std::to_string(s.executions) + " execution" + (s.executions == 1 ? "" : "s") +
                    ", " + Us(s.op_time_us) + " in operators; device " +
                    (s.device.empty() ? "?" : s.device) + ", fp32 peak " +
                    (s.peak_gflops > 0 ? Fixed(s.peak_gflops, 1) + " GFLOP/s" : "unknown");
  o << "<text x=\"16\" y=\"46\" fill=\"#555\">" << Xml(sub) << "</text>\n";
  // Grid and axis (total time per operator, over all executions).
  const int plot_top = top_margin - 8, plot_bottom = top_margin + static_cast<int>(n) * row_h;
  for (int t = 0; t <= 4; ++t) {
    const double x = label_w + plot_w * t / 4.0;
    o << "<line x1=\"" << Fixed(x, 1) << "\" y1=\"" << plot_top << "\" x2=\"" << Fixed(x, 1)
      << "\" y2=\"" << plot_bottom << "\" stroke=\"" << (t == 0 ? "#888" : "#e3e3e3")
      << "\" stroke-width=\"1\"/>\n";
    // One unit on the whole axis.
    const double v = axis_max * t / 4;
    const std::string tick = t == 0 ? "0"
                             : axis_max >= 10000
                                 ? Fixed(v / 1000.0, axis_max >= 40000 ? 0 : 1) + " ms"
                                 : Fixed(v, axis_max >= 40 ? 0 : 1) + " \xC2\xB5s";
    o << "<text x=\"" << Fixed(x, 1) << "\" y=\"" << plot_bottom + 16
      << "\" text-anchor=\"middle\" fill=\"#555\" font-size=\"11\">" << Xml(tick) << "</text>\n";
  }
  o << "<text x=\"" << label_w + plot_w / 2 << "\" y=\"" << plot_bottom + 34
    << "\" text-anchor=\"middle\" fill=\"#555\" font-size=\"11\">total time over all executions"
    << "</text>\n";
  o << "<text x=\"" << label_w + plot_w + 8 << "\" y=\"" << plot_top - 4
    << "\" fill=\"#555\" font-size=\"11\">total \xC2\xB7 % of time \xC2\xB7 % of peak</text>\n";
  for (size_t i = 0; i < n; ++i) {
    const TopOp& op = s.ops[i];
    const int y = top_margin + static_cast<int>(i) * row_h;
    const double w = std::max(1.0, plot_w * op.total_us / axis_max);
    o << "<text x=\"" << label_w - 8 << "\" y=\"" << y + bar_h - 5
      << "\" text-anchor=\"end\" fill=\"#222\">" << Xml(labels[i]) << "</text>\n";
    o << "<rect class=\"bar\" x=\"" << label_w << "\" y=\"" << y << "\" width=\"" << Fixed(w, 1)
      << "\" height=\"" << bar_h << "\" fill=\"" << PeakColour(op.peak_pct) << "\"><title>"
      << Xml(op.name + " (" + op.type + "), ONNX: " + op.onnx_nodes + "; " +
             std::to_string(op.count) + " runs, total " + Fixed(op.total_us, 1) + " us, mean " +
             Fixed(op.mean_us, 1) + " us")
      << "</title></rect>\n";
    std::string value = Us(op.total_us) + " \xC2\xB7 " + Fixed(op.time_pct, 1) + " % of time";
    value += op.peak_pct >= 0 ? " \xC2\xB7 " + Fixed(op.peak_pct, 1) + " % of peak"
                              : " \xC2\xB7 peak n/a";
    o << "<text x=\"" << label_w + plot_w + 8 << "\" y=\"" << y + bar_h - 5 << "\" fill=\"#222\">"
      << Xml(value) << "</text>\n";
  }
  // Legend: the colour scale of % of peak.
  const int ly = height - 16;
  o << "<text x=\"16\" y=\"" << ly << "\" fill=\"#555\" font-size=\"11\">bar colour: % of the "
    << "device's fp32 peak</text>\n";
  int lx = 270;
  for (double p : {0.0, 1.0, 5.0, 10.0, 25.0, 50.0, 100.0}) {
    o << "<rect x=\"" << lx << "\" y=\"" << ly - 10 << "\" width=\"14\" height=\"12\" fill=\""
      << PeakColour(p) << "\"/><text x=\"" << lx + 18 << "\" y=\"" << ly
      << "\" fill=\"#555\" font-size=\"11\">" << Fixed(p, 0) << "%</text>\n";
    lx += 58;
  }
  o << "<rect x=\"" << lx << "\" y=\"" << ly - 10 << "\" width=\"14\" height=\"12\" fill=\""
    << PeakColour(-1) << "\"/><text x=\"" << lx + 18 << "\" y=\"" << ly
    << "\" fill=\"#555\" font-size=\"11\">unknown</text>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace kiln::tools
