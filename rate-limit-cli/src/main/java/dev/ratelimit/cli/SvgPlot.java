package dev.ratelimit.cli;

import dev.ratelimit.cli.LevelTrace.Mark;
import dev.ratelimit.cli.LevelTrace.Panel;
import dev.ratelimit.cli.LevelTrace.Point;
import dev.ratelimit.cli.LevelTrace.Series;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The {@code --plot} picture: one panel per limit, stacked; in each, the units remaining over
 * time of its busiest keys (one coloured line per key), admitted requests as dots and denied
 * ones as red crosses, the capacity dashed, and a legend. Self-contained SVG: no scripts, no
 * fonts beyond the generic {@code sans-serif}.
 */
final class SvgPlot {
  /** The width of a plot area in px: the level is sampled at about this many points. */
  static final int PLOT_WIDTH = 640;
  static final int WIDTH = 960;

  private static final int LEFT = 76;
  private static final int HEADER = 58;
  private static final int PLOT_HEIGHT = 240;
  private static final int FOOTER = 54;
  private static final int PANEL_HEIGHT = HEADER + PLOT_HEIGHT + FOOTER;
  private static final int TOP = 6;
  private static final int LEGEND_X = LEFT + PLOT_WIDTH + 28;
  private static final int LEGEND_KEY_CHARS = 24;

  private static final List<String> COLOURS = List.of("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf");
  static final String DENIED = "#d62728";
  private static final String AXIS = "#444444";
  private static final String GRID = "#e8e8e8";
  private static final String MUTED = "#666666";

  private final List<Panel> panels;

  SvgPlot(List<Panel> panels) {
    this.panels = List.copyOf(panels);
  }

  String render() {
    int height = panels.isEmpty() ? 80 : TOP + panels.size() * PANEL_HEIGHT;
    Svg svg = new Svg().open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", WIDTH, "height", height,
        "viewBox", "0 0 " + WIDTH + " " + height, "font-family", "sans-serif", "font-size", 12);
    svg.text("title", "ratelimit simulate: units remaining over time"
        + (panels.isEmpty() ? "" : " for " + panels.stream().map(Panel::name).collect(Collectors.joining(", "))));
    svg.empty("rect", "width", WIDTH, "height", height, "fill", "white");
    if (panels.isEmpty()) {
      svg.text("text", "No requests to plot: the trace had no line that made a decision.", "x", LEFT, "y", 44,
          "font-size", 14);
    }
    for (int i = 0; i < panels.size(); i++) {
      new PanelDrawing(panels.get(i), TOP + i * PANEL_HEIGHT).draw(svg);
    }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg.close("svg");
  }

  /** One panel, with its scales: time since the first request across, units remaining up. */
  private static final class PanelDrawing {
    private final Panel panel;
    private final int top;
    private final int plotTop;
    private final int plotBottom;
    private final Ticks.TimeUnit unit;
    private final double xLow;
    private final double xHigh;
    private final double yLow;
    private final double yHigh;
    private final boolean debt;
    private final Ticks xTicks;
    private final Ticks yTicks;

    PanelDrawing(Panel panel, int top) {
      this.panel = panel;
      this.top = top;
      this.plotTop = top + HEADER;
      this.plotBottom = plotTop + PLOT_HEIGHT;
      long span = panel.end() - panel.start();
      this.unit = Ticks.TimeUnit.forSpan(span);
      this.xTicks = Ticks.covering(0, Math.max(span, 1) / (double) unit.millis(), 8);
      this.xLow = -0.015 * xTicks.last();
      this.xHigh = 1.015 * xTicks.last();

      double low = 0;
      double high = panel.limit().capacity();
      for (Series series : panel.series()) {
        for (Point point : series.levels()) {
          low = Math.min(low, point.units());
          high = Math.max(high, point.units());
        }
      }
      this.debt = low < 0;
      this.yTicks = Ticks.covering(low, high, 5); // debt reaches down to a labelled tick
      double pad = 0.05 * (yTicks.last() - yTicks.first());
      this.yLow = yTicks.first() - pad;
      this.yHigh = yTicks.last() + pad;
    }

    void draw(Svg svg) {
      svg.open("g", "class", "panel", "id", "limit-" + panel.name());
      header(svg);
      grid(svg);
      axes(svg);
      svg.open("g", "class", "series", "fill", "none", "stroke-width", 1.6, "stroke-linejoin", "round");
      for (int i = 0; i < panel.series().size(); i++) {
        line(svg, panel.series().get(i), colour(i));
      }
      svg.close("g");
      for (int i = 0; i < panel.series().size(); i++) {
        admitted(svg, panel.series().get(i), colour(i));
      }
      for (Series series : panel.series()) {
        denied(svg, series);
      }
      legend(svg);
      svg.close("g");
    }

    private void header(Svg svg) {
      svg.text("text", panel.name() + ": " + panel.limit(), "class", "title", "x", LEFT, "y", top + 24,
          "font-size", 16, "font-weight", "bold");
      int shown = panel.series().size();
      String keys = shown == panel.keys() && !panel.moreKeys() ? (shown == 1 ? "its only key" : "all " + shown + " keys")
          : "the " + shown + " busiest of " + (panel.moreKeys() ? "more than " : "") + panel.keys() + " keys";
      svg.text("text", "units remaining over time for " + keys + " · " + panel.admitted() + " admitted, "
          + panel.denied() + " denied", "class", "subtitle", "x", LEFT, "y", top + 44, "fill", MUTED);
    }

    private void grid(Svg svg) {
      svg.open("g", "class", "grid", "stroke", GRID, "stroke-width", 1);
      for (double tick : xTicks.values()) {
        svg.empty("line", "x1", x(tick), "y1", plotTop, "x2", x(tick), "y2", plotBottom);
      }
      for (double tick : yTicks.values()) {
        svg.empty("line", "x1", LEFT, "y1", y(tick), "x2", LEFT + PLOT_WIDTH, "y2", y(tick));
      }
      svg.close("g");
      if (debt) { // after reservations: shade below zero, and mark zero
        svg.empty("rect", "class", "debt", "x", LEFT, "y", y(0), "width", PLOT_WIDTH, "height", plotBottom - y(0),
            "fill", DENIED, "fill-opacity", 0.06);
        svg.empty("line", "x1", LEFT, "y1", y(0), "x2", LEFT + PLOT_WIDTH, "y2", y(0), "stroke", "#999999");
      }
      double capacity = y(panel.limit().capacity());
      svg.empty("line", "class", "capacity", "x1", LEFT, "y1", capacity, "x2", LEFT + PLOT_WIDTH, "y2", capacity,
          "stroke", "#888888", "stroke-dasharray", "5 4");
    }

    private void axes(Svg svg) {
      svg.open("g", "class", "axes", "fill", AXIS);
      svg.empty("path", "d", "M" + LEFT + " " + plotTop + "V" + plotBottom + "H" + (LEFT + PLOT_WIDTH),
          "fill", "none", "stroke", AXIS);
      for (double tick : xTicks.values()) {
        svg.empty("line", "x1", x(tick), "y1", plotBottom, "x2", x(tick), "y2", plotBottom + 5, "stroke", AXIS);
        svg.text("text", xTicks.label(tick), "x", x(tick), "y", plotBottom + 19, "text-anchor", "middle");
      }
      for (double tick : yTicks.values()) {
        svg.empty("line", "x1", LEFT - 5, "y1", y(tick), "x2", LEFT, "y2", y(tick), "stroke", AXIS);
        svg.text("text", yTicks.label(tick), "x", LEFT - 9, "y", y(tick) + 4, "text-anchor", "end");
      }
      svg.text("text", "time (" + unit.symbol() + ") since the first request, "
          + Instant.ofEpochMilli(panel.start()), "class", "axis-label", "x", LEFT + PLOT_WIDTH / 2.0,
          "y", plotBottom + 42, "text-anchor", "middle");
      svg.text("text", "units remaining", "class", "axis-label", "transform",
          "translate(" + (LEFT - 48) + " " + Svg.number((plotTop + plotBottom) / 2.0) + ") rotate(-90)",
          "text-anchor", "middle");
      svg.close("g");
    }

    /** The level as one path: samples between requests, and the drop at each request. */
    private void line(Svg svg, Series series, String colour) {
      StringBuilder d = new StringBuilder();
      String previous = null;
      for (Point point : series.levels()) {
        String at = Svg.number(x(point.t())) + " " + Svg.number(y(point.units()));
        if (!at.equals(previous)) {
          d.append(previous == null ? "M" : " L").append(at);
          previous = at;
        }
      }
      svg.empty("path", "class", "level", "data-key", series.key(), "stroke", colour, "d", d);
    }

    private void admitted(Svg svg, Series series, String colour) {
      svg.open("g", "class", "admitted", "data-key", series.key(), "fill", colour, "stroke", "white",
          "stroke-width", 0.6);
      for (Mark mark : distinct(series.marks(), true)) {
        svg.empty("circle", "cx", x(mark.t()), "cy", y(mark.units()), "r", 2.4);
      }
      svg.close("g");
    }

    private void denied(Svg svg, Series series) {
      List<Mark> marks = distinct(series.marks(), false);
      if (marks.isEmpty()) {
        return;
      }
      svg.open("g", "class", "denied", "data-key", series.key(), "stroke", DENIED, "stroke-width", 1.5,
          "stroke-linecap", "round");
      for (Mark mark : marks) {
        svg.empty("path", "d", cross(x(mark.t()), y(mark.units())));
      }
      svg.close("g");
    }

    /** The marks of one kind, one per pixel (a hammering key puts many on the same spot). */
    private List<Mark> distinct(List<Mark> marks, boolean allowed) {
      Set<Long> seen = new HashSet<>();
      return marks.stream()
          .filter(mark -> mark.allowed() == allowed)
          .filter(mark -> seen.add(Math.round(x(mark.t())) * 100_000 + Math.round(y(mark.units()))))
          .toList();
    }

    private void legend(Svg svg) {
      svg.open("g", "class", "legend", "transform", "translate(" + LEGEND_X + " " + plotTop + ")");
      svg.text("text", "busiest keys", "y", 4, "fill", MUTED, "font-size", 11);
      int y = 26;
      for (int i = 0; i < panel.series().size(); i++) {
        Series series = panel.series().get(i);
        svg.open("g", "class", "legend-key", "transform", "translate(0 " + y + ")");
        svg.empty("line", "x1", 0, "y1", -4, "x2", 20, "y2", -4, "stroke", colour(i), "stroke-width", 2.5);
        svg.empty("circle", "cx", 10, "cy", -4, "r", 2.8, "fill", colour(i));
        svg.text("text", shorten(Summary.display(series.key())), "x", 28, "y", 0);
        svg.text("text", series.requests() + (series.requests() == 1 ? " request, " : " requests, ")
            + series.denied() + " denied", "x", 28, "y", 14, "fill", MUTED, "font-size", 10.5);
        svg.close("g");
        y += 34;
      }
      y += 6;
      svg.empty("circle", "cx", 10, "cy", y - 4, "r", 2.8, "fill", MUTED);
      svg.text("text", "admitted request", "x", 28, "y", y);
      y += 20;
      svg.empty("path", "d", cross(10, y - 4), "stroke", DENIED, "stroke-width", 1.5, "stroke-linecap", "round");
      svg.text("text", "denied request", "x", 28, "y", y);
      y += 20;
      svg.empty("line", "x1", 0, "y1", y - 4, "x2", 20, "y2", y - 4, "stroke", "#888888", "stroke-dasharray", "5 4");
      svg.text("text", "capacity (" + plain(panel.limit().capacity()) + ")", "x", 28, "y", y);
      svg.close("g");
    }

    private double x(long t) {
      return x((t - panel.start()) / (double) unit.millis());
    }

    private double x(double units) {
      return LEFT + (units - xLow) / (xHigh - xLow) * PLOT_WIDTH;
    }

    private double y(double units) {
      return plotBottom - (units - yLow) / (yHigh - yLow) * PLOT_HEIGHT;
    }
  }

  private static String colour(int index) {
    return COLOURS.get(index % COLOURS.size());
  }

  private static String cross(double x, double y) {
    return "M" + Svg.number(x - 3.5) + " " + Svg.number(y - 3.5) + "l7 7m0 -7l-7 7";
  }

  private static String shorten(String key) {
    return key.length() <= LEGEND_KEY_CHARS ? key : key.substring(0, LEGEND_KEY_CHARS - 1) + "…";
  }

  private static String plain(double value) {
    return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
  }
}
