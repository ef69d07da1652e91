// Hand-written SVG roofline.
#include "ledger/roofline_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace gemmkit::ledger {
namespace {

constexpr double kW = 960, kH = 620;
constexpr double kLeft = 90, kRight = 200, kTop = 56, kBottom = 64;

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// 1e12 -> "1 T", 3e14 -> "300 T", 1e15 -> "1 P".
std::string si(double v) {
  static const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
  int u = 0;
  while (v >= 1000 && u < 6) {
    v /= 1000;
    ++u;
  }
  char b[32];
  std::snprintf(b, sizeof b, v < 10 && std::fabs(v - std::round(v)) > 1e-9 ? "%.1f %s" : "%.0f %s",
                v, units[u]);
  return b;
}

std::string decade(double e) {
  const double v = std::pow(10.0, e);
  char b[32];
  if (e >= -2 && e <= 3)
    std::snprintf(b, sizeof b, "%g", v);
  else
    std::snprintf(b, sizeof b, "1e%d", static_cast<int>(e));
  return b;
}

const char* color_of(PeakClass c) {
  switch (c) {
    case PeakClass::FP64:
      return "#8c564b";
    case PeakClass::FP32:
      return "#1f77b4";
    case PeakClass::TF32:
      return "#17becf";
    case PeakClass::FP16:
      return "#2ca02c";
    case PeakClass::FP8:
      return "#d62728";
    case PeakClass::INT8:
      return "#9467bd";
  }
  return "#000";
}

}  // namespace

std::string roofline_svg(const Machine& m, const std::vector<RooflinePoint>& pts,
                         const std::string& title) {
  // Roofs: one per distinct peak (classes with the same peak share a roof and a label).
  std::map<double, std::vector<PeakClass>> roofs;
  for (int c = 0; c < kPeakClassCount; ++c)
    if (m.peak[c] > 0) roofs[m.peak[c]].push_back(static_cast<PeakClass>(c));
  const double bw = m.dram_bytes_per_s > 0 ? m.dram_bytes_per_s : 1;
  double peak_max = 1, peak_min = 1e300, ridge_max = 1;
  for (const auto& [peak, cls] : roofs) {
    peak_max = std::max(peak_max, peak);
    peak_min = std::min(peak_min, peak);
    ridge_max = std::max(ridge_max, peak / bw);
  }
  if (roofs.empty()) peak_min = 1;
  // Axis ranges in decades, covering the roofs and every point.
  double x_lo = std::log10(std::min(1.0, peak_min / bw / 10)), x_hi = std::log10(ridge_max * 30);
  double y_hi = std::log10(peak_max * 1.3),
         y_lo = std::min(std::log10(peak_min / 30), x_lo + std::log10(bw));  // slope start visible
  for (const auto& p : pts) {
    if (p.arithmetic_intensity <= 0 || p.flops_per_s <= 0) continue;
    x_lo = std::min(x_lo, std::log10(p.arithmetic_intensity / 2));
    x_hi = std::max(x_hi, std::log10(p.arithmetic_intensity * 2));
    y_lo = std::min(y_lo, std::log10(p.flops_per_s / 2));
    y_hi = std::max(y_hi, std::log10(p.flops_per_s * 2));
  }
  x_lo = std::floor(x_lo);
  x_hi = std::ceil(x_hi);
  y_lo = std::floor(y_lo);
  y_hi = std::ceil(y_hi);
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto X = [&](double ai) { return kLeft + (std::log10(ai) - x_lo) / (x_hi - x_lo) * pw; };
  auto Y = [&](double f) { return kTop + (y_hi - std::log10(f)) / (y_hi - y_lo) * ph; };
  const double ai_lo = std::pow(10.0, x_lo), ai_hi = std::pow(10.0, x_hi);

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
    << "\" viewBox=\"0 0 " << kW << " " << kH
    << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << kW / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"17\">"
    << esc(title) << "</text>\n";
  s << "<clipPath id=\"plot\"><rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << pw
    << "\" height=\"" << ph << "\"/></clipPath>\n";
  // Grid and ticks: decades labelled, 2..9 as minor ticks.
  s << "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double e = x_lo; e <= x_hi; ++e)
    for (int k = 1; k < 10 && e + std::log10(k) <= x_hi + 1e-9; ++k) {
      const double x = X(k * std::pow(10.0, e));
      s << "<line x1=\"" << num(x) << "\" y1=\"" << kTop << "\" x2=\"" << num(x) << "\" y2=\""
        << kTop + ph << "\"" << (k == 1 ? " stroke=\"#c8c8c8\"" : "") << "/>\n";
    }
  for (double e = y_lo; e <= y_hi; ++e)
    for (int k = 1; k < 10 && e + std::log10(k) <= y_hi + 1e-9; ++k) {
      const double y = Y(k * std::pow(10.0, e));
      s << "<line x1=\"" << kLeft << "\" y1=\"" << num(y) << "\" x2=\"" << kLeft + pw << "\" y2=\""
        << num(y) << "\"" << (k == 1 ? " stroke=\"#c8c8c8\"" : "") << "/>\n";
    }
  s << "</g>\n";
  s << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#333\"/>\n";
  s << "<g font-size=\"12\" fill=\"#333\">\n";
  for (double e = x_lo; e <= x_hi; ++e) {
    const double x = X(std::pow(10.0, e));
    s << "<line x1=\"" << num(x) << "\" y1=\"" << kTop + ph << "\" x2=\"" << num(x) << "\" y2=\""
      << kTop + ph + 6 << "\" stroke=\"#333\"/>\n";
    s << "<text x=\"" << num(x) << "\" y=\"" << kTop + ph + 21 << "\" text-anchor=\"middle\">"
      << decade(e) << "</text>\n";
  }
  for (double e = y_lo; e <= y_hi; ++e) {
    const double y = Y(std::pow(10.0, e));
    s << "<line x1=\"" << kLeft - 6 << "\" y1=\"" << num(y) << "\" x2=\"" << kLeft << "\" y2=\""
      << num(y) << "\" stroke=\"#333\"/>\n";
    s << "<text x=\"" << kLeft - 10 << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
      << si(std::pow(10.0, e)) << "</text>\n";
  }
  s << "</g>\n";
  s << "<text x=\"" << kLeft + pw / 2 << "\" y=\"" << kH - 18
    << "\" text-anchor=\"middle\" font-size=\"14\">arithmetic intensity (FLOP/byte)</text>\n";
  s << "<text x=\"22\" y=\"" << kTop + ph / 2 << "\" text-anchor=\"middle\" font-size=\"14\" "
    << "transform=\"rotate(-90 22 " << kTop + ph / 2 << ")\">FLOP/s</text>\n";

  // The roofs: one shared bandwidth slope (every class sees the same DRAM) up to the highest
  // ridge, then each class's flat compute roof from its own ridge, marked with a dot.
  s << "<g clip-path=\"url(#plot)\" fill=\"none\" stroke-width=\"2.2\">\n";
  s << "<line x1=\"" << num(X(ai_lo)) << "\" y1=\"" << num(Y(ai_lo * bw)) << "\" x2=\""
    << num(X(ridge_max)) << "\" y2=\"" << num(Y(ridge_max * bw)) << "\" stroke=\"#444\"/>\n";
  for (const auto& [peak, cls] : roofs) {
    const double ridge = peak / bw;
    s << "<polyline class=\"roof\" stroke=\"" << color_of(cls.front()) << "\" points=\""
      << num(X(ridge)) << "," << num(Y(peak)) << " " << num(X(ai_hi)) << "," << num(Y(peak))
      << "\"/>\n";
    s << "<circle class=\"ridge\" cx=\"" << num(X(ridge)) << "\" cy=\"" << num(Y(peak))
      << "\" r=\"3\" fill=\"" << color_of(cls.front()) << "\" stroke=\"none\"/>\n";
  }
  s << "</g>\n";
  // Roof labels in the right margin; nudge apart labels that would overlap.
  s << "<g font-size=\"12\">\n";
  double last_y = -1e9;
  for (auto it = roofs.rbegin(); it != roofs.rend(); ++it) {
    std::string name;
    for (PeakClass c : it->second) {
      if (!name.empty()) name += '/';
      name += peak_class_name(c);
    }
    double y = std::max(Y(it->first) + 4, last_y + 15);
    last_y = y;
    s << "<text x=\"" << kLeft + pw + 8 << "\" y=\"" << num(y) << "\" fill=\""
      << color_of(it->second.front()) << "\">" << esc(name) << " " << si(it->first)
      << "FLOP/s</text>\n";
  }
  {
    // Bandwidth label along the slope, near its lower-left end.
    const double ai = std::pow(10.0, x_lo + 0.3 * (std::log10(ridge_max) - x_lo));
    const double angle =
        -std::atan2(Y(ai_lo * bw) - Y(ridge_max * bw), X(ridge_max) - X(ai_lo)) * 180 / M_PI;
    s << "<text x=\"" << num(X(ai) - 6) << "\" y=\"" << num(Y(ai * bw) - 12) << "\" fill=\"#444\" "
      << "transform=\"rotate(" << num(angle) << " " << num(X(ai) - 6) << " " << num(Y(ai * bw) - 12)
      << ")\">DRAM " << si(bw) << "B/s</text>\n";
  }
  s << "</g>\n";

  // Points: pairs (measured <-> predicted) joined by a thin line first, then the markers.
  std::map<int, std::pair<const RooflinePoint*, const RooflinePoint*>> pairs;
  for (const auto& p : pts) {
    if (p.pair < 0) continue;
    if (p.kind == RooflinePoint::Kind::Measured) pairs[p.pair].first = &p;
    if (p.kind == RooflinePoint::Kind::Predicted) pairs[p.pair].second = &p;
  }
  s << "<g stroke=\"#999\" stroke-width=\"1\">\n";
  for (const auto& [id, pr] : pairs)
    if (pr.first && pr.second && pr.first->flops_per_s > 0 && pr.second->flops_per_s > 0)
      s << "<line x1=\"" << num(X(pr.first->arithmetic_intensity)) << "\" y1=\""
        << num(Y(pr.first->flops_per_s)) << "\" x2=\"" << num(X(pr.second->arithmetic_intensity))
        << "\" y2=\"" << num(Y(pr.second->flops_per_s)) << "\"/>\n";
  s << "</g>\n";
  bool any_measured = false, any_predicted = false, any_problem = false;
  // Problems first, so that measured/predicted markers stay visible on top of them.
  std::vector<const RooflinePoint*> order;
  for (const auto& p : pts)
    if (p.kind == RooflinePoint::Kind::Problem) order.push_back(&p);
  for (const auto& p : pts)
    if (p.kind != RooflinePoint::Kind::Problem) order.push_back(&p);
  for (const RooflinePoint* pp : order) {
    const RooflinePoint& p = *pp;
    if (p.arithmetic_intensity <= 0 || p.flops_per_s <= 0) continue;
    const double x = X(p.arithmetic_intensity), y = Y(p.flops_per_s);
    switch (p.kind) {
      case RooflinePoint::Kind::Problem:
        any_problem = true;
        s << "<path class=\"problem\" d=\"M" << num(x) << " " << num(y - 8) << " L" << num(x + 8)
          << " " << num(y) << " L" << num(x) << " " << num(y + 8) << " L" << num(x - 8) << " "
          << num(y) << " Z\" fill=\"#111\"/>\n";
        if (!p.label.empty())
          s << "<text x=\"" << num(x + 11) << "\" y=\"" << num(y + 17) << "\" font-size=\"12\">"
            << esc(p.label) << "</text>\n";
        break;
      case RooflinePoint::Kind::Measured:
        any_measured = true;
        s << "<circle class=\"measured\" cx=\"" << num(x) << "\" cy=\"" << num(y)
          << "\" r=\"4.5\" fill=\"#ff7f0e\">"
          << "<title>" << esc(p.label) << "</title></circle>\n";
        break;
      case RooflinePoint::Kind::Predicted:
        any_predicted = true;
        s << "<circle class=\"predicted\" cx=\"" << num(x) << "\" cy=\"" << num(y)
          << "\" r=\"4.5\" fill=\"none\" "
          << "stroke=\"#1f3f8f\" stroke-width=\"1.6\"><title>" << esc(p.label)
          << "</title></circle>\n";
        break;
    }
  }
  // Legend (top left inside the plot).
  std::vector<std::pair<std::string, std::string>> legend;
  if (any_problem) legend.push_back({"problem", "ledger floor (attainable)"});
  if (any_measured) legend.push_back({"measured", "measured (bench)"});
  if (any_predicted) legend.push_back({"predicted", "ledger prediction"});
  if (!legend.empty()) {
    const double lx = kLeft + 12, ly = kTop + 12;
    s << "<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"190\" height=\""
      << 10 + 18 * legend.size() << "\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#aaa\"/>\n";
    for (std::size_t i = 0; i < legend.size(); ++i) {
      const double cy = ly + 14 + 18 * static_cast<double>(i), cx = lx + 14;
      if (legend[i].first == "problem")
        s << "<path d=\"M" << cx << " " << cy - 6 << " L" << cx + 6 << " " << cy << " L" << cx
          << " " << cy + 6 << " L" << cx - 6 << " " << cy << " Z\" fill=\"#111\"/>\n";
      else if (legend[i].first == "measured")
        s << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"4.5\" fill=\"#ff7f0e\"/>\n";
      else
        s << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"4.5\" fill=\"none\" "
          << "stroke=\"#1f3f8f\" stroke-width=\"1.6\"/>\n";
      s << "<text x=\"" << cx + 14 << "\" y=\"" << cy + 4 << "\" font-size=\"12\">"
        << esc(legend[i].second) << "</text>\n";
    }
  }
  if (m.modelled_only)
    s << "<text x=\"" << kLeft + pw << "\" y=\"" << kTop - 8 << "\" text-anchor=\"end\" "
      << "font-size=\"12\" fill=\"#a00\">modelled only: no such hardware here</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace gemmkit::ledger
