package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@code --plot}: the SVG is well-formed XML and shows what it says it shows. */
class PlotTest {
  private static final String SPEC = "token-bucket rate=5 period=1s capacity=10";

  @TempDir
  Path dir;

  @Test
  void plot_isValidSvgTitledWithTheLimitAndItsSpec() throws Exception {
    Document svg = plot(burst("a", 0, 3), "--limit", "api=" + SPEC);

    assertThat(svg.getDocumentElement().getTagName()).isEqualTo("svg");
    assertThat(svg.getDocumentElement().getAttribute("xmlns")).isEqualTo("http://www.w3.org/2000/svg");
    assertThat(texts(svg, "//text[@class='title']")).containsExactly("api: " + SPEC);
    assertThat(texts(svg, "/svg/title")).singleElement().asString().contains("api");
    assertThat(nodes(svg, "//script")).isEmpty();
  }

  @Test
  void plot_drawsOnePathPerBusiestKeyAtMostFive() throws Exception {
    StringBuilder trace = new StringBuilder();
    String[] keys = {"k1", "k2", "k3", "k4", "k5", "k6", "k7"};
    for (int i = 0; i < keys.length; i++) {
      trace.append(burst(keys[i], 100 * i, keys.length - i)); // k1 busiest, k7 quietest
    }

    Document svg = plot(trace.toString(), "--limit", "api=" + SPEC);

    assertThat(attributes(svg, "//path[@class='level']", "data-key")).containsExactly("k1", "k2", "k3", "k4", "k5");
    assertThat(texts(svg, "//g[@class='legend-key']/text[1]")).containsExactly("k1", "k2", "k3", "k4", "k5");
    assertThat(texts(svg, "//text[@class='subtitle']")).singleElement().asString()
        .contains("the 5 busiest of 7 keys");
  }

  @Test
  void plot_hasLegendWithKeysAndMarkers() throws Exception {
    Document svg = plot(burst("client-a", 0, 2) + burst("client-b", 0, 1), "--limit", "api=" + SPEC);

    assertThat(texts(svg, "//g[@class='legend-key']/text[1]")).containsExactly("client-a", "client-b");
    assertThat(texts(svg, "//g[@class='legend-key']/text[2]"))
        .containsExactly("2 requests, 0 denied", "1 request, 0 denied");
    assertThat(texts(svg, "//g[@class='legend']/text"))
        .contains("admitted request", "denied request", "capacity (10)");
  }

  @Test
  void plot_marksDeniedRequestsOnlyWhenThereWereDenials() throws Exception {
    Document calm = plot(burst("a", 0, 10), "--limit", "api=" + SPEC);
    Document hammered = plot(burst("a", 0, 13), "--limit", "api=" + SPEC);

    assertThat(nodes(calm, "//g[@class='denied']/path")).isEmpty();
    assertThat(nodes(calm, "//g[@class='admitted']/circle")).isNotEmpty();
    assertThat(nodes(hammered, "//g[@class='denied' and @data-key='a']/path")).isNotEmpty();
    assertThat(((Element) nodes(hammered, "//g[@class='denied']").get(0)).getAttribute("stroke"))
        .isEqualTo(SvgPlot.DENIED);
  }

  @Test
  void plot_labelsBothAxes() throws Exception {
    Document svg = plot("{\"t\": 1772442000000, \"key\": \"a\"}\n{\"t\": 1772442060000, \"key\": \"a\"}\n",
        "--limit", "api=" + SPEC);

    assertThat(texts(svg, "//text[@class='axis-label']")).containsExactly(
        "time (s) since the first request, 2026-03-02T09:00:00Z", "units remaining");
    assertThat(texts(svg, "//g[@class='axes']/text[not(@class)]")).contains("0", "10", "20", "60", "2", "4", "8");
  }

  @Test
  void plot_drawsOnePanelPerLimitThatSawRequestsAtMostFour() throws Exception {
    StringBuilder trace = new StringBuilder();
    List<String> args = new ArrayList<>();
    for (String name : new String[] {"l1", "l2", "quiet", "l3", "l4", "l5"}) {
      args.add("--limit");
      args.add(name + "=10/1m");
      if (!name.equals("quiet")) {
        trace.append("{\"t\": 0, \"limit\": \"").append(name).append("\", \"key\": \"k\"}\n");
      }
    }

    Document svg = plot(trace.toString(), args.toArray(String[]::new));

    assertThat(attributes(svg, "//g[@class='panel']", "id")).containsExactly("limit-l1", "limit-l2", "limit-l3",
        "limit-l4");
  }

  @Test
  void plot_goesBelowZeroWhenReservationsMadeDebt() throws Exception {
    String reserve = "{\"t\": 0, \"key\": \"a\", \"op\": \"reserve\", \"count\": 14}\n{\"t\": 2000, \"key\": \"a\"}\n";

    Document debt = plot(reserve, "--limit", "api=" + SPEC);
    Document none = plot(burst("a", 0, 3), "--limit", "api=" + SPEC);

    assertThat(nodes(debt, "//rect[@class='debt']")).hasSize(1);
    assertThat(texts(debt, "//g[@class='axes']/text[not(@class)]")).contains("-5", "0", "5", "10");
    assertThat(nodes(none, "//rect[@class='debt']")).isEmpty();
  }

  @Test
  void plot_escapesKeys() throws Exception {
    Document svg = plot("{\"t\": 0, \"key\": \"<b>&'\\\"x\\u0001\"}\n", "--limit", "api=" + SPEC);

    assertThat(texts(svg, "//g[@class='legend-key']/text[1]")).containsExactly("<b>&'\"x\uFFFD");
  }

  @Test
  void plot_saysSoWhenNothingWasDecided() throws Exception {
    Document svg = plot("not a request\n", "--limit", "api=" + SPEC);

    assertThat(nodes(svg, "//g[@class='panel']")).isEmpty();
    assertThat(texts(svg, "//text")).singleElement().asString().startsWith("No requests to plot");
  }

  /** {@code count} requests of {@code key} at time {@code t}. */
  private static String burst(String key, long t, int count) {
    return ("{\"t\": " + t + ", \"key\": \"" + key + "\"}\n").repeat(count);
  }

  private Document plot(String trace, String... limits) throws Exception {
    Path svg = dir.resolve("plot-" + System.nanoTime() + ".svg");
    List<String> args = new ArrayList<>(List.of("simulate", "--output", dir.resolve("out.jsonl").toString(),
        "--plot", svg.toString()));
    args.addAll(List.of(limits));

    CliRun run = CliRun.run(trace, args.toArray(String[]::new));

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    return parse(svg);
  }

  private static Document parse(Path svg) throws Exception {
    try {
      return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
    } catch (IOException e) {
      throw new AssertionError("no plot written at " + svg, e);
    }
  }

  private static List<org.w3c.dom.Node> nodes(Document document, String xpath) throws XPathExpressionException {
    NodeList list = (NodeList) XPathFactory.newInstance().newXPath().evaluate(xpath, document, XPathConstants.NODESET);
    List<org.w3c.dom.Node> nodes = new ArrayList<>();
    for (int i = 0; i < list.getLength(); i++) {
      nodes.add(list.item(i));
    }
    return nodes;
  }

  private static List<String> texts(Document document, String xpath) throws XPathExpressionException {
    return nodes(document, xpath).stream().map(org.w3c.dom.Node::getTextContent).toList();
  }

  private static List<String> attributes(Document document, String xpath, String name)
      throws XPathExpressionException {
    return nodes(document, xpath).stream().map(node -> ((Element) node).getAttribute(name)).toList();
  }
}
