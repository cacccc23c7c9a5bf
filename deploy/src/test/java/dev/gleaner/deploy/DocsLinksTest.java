package dev.gleaner.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md leads somewhere: to a file that exists and, for
 * {@code page.md#anchor} (or {@code #anchor} within a page), to a heading of that page under
 * GitHub's anchor rules. Links to http(s) and mailto addresses are not checked. Tests run in the
 * module's folder, so the repository's root is {@code ..}.
 */
class DocsLinksTest {
  private static final Path ROOT = Path.of("..");

  /** {@code [text](target)} and {@code ![alt](target "title")}; the text may hold one level of brackets. */
  private static final Pattern INLINE = Pattern.compile(
      "!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*(<[^>]*>|[^)\\s]+)(?:\\s+\"[^\"]*\"|\\s+'[^']*')?\\s*\\)");
  /** A reference definition: {@code [label]: target}. */
  private static final Pattern REFERENCE = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");
  /** An inline code span, whatever the length of its backtick fence. */
  private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1");
  private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)(?:\\s+#+)?\\s*$");
  private static final Pattern FENCE = Pattern.compile("^ {0,3}(```+|~~~+)");

  /** The links of one file, with their line numbers, outside code blocks and code spans. */
  record Link(int line, String target) {}

  @Test
  void everyRelativeLinkInTheReadmeAndTheDocsResolves() throws IOException {
    List<Path> pages = pages();
    assertTrue(pages.contains(ROOT.resolve("README.md").normalize()),
        "README.md not found under " + ROOT.toAbsolutePath().normalize() + ": is the working directory the module's?");
    Map<Path, Set<String>> anchors = new HashMap<>();
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      for (Link link : links(Files.readString(page))) {
        String problem = check(page, link.target(), anchors);
        checked++;
        if (problem != null) {
          problems.add(ROOT.relativize(page) + ":" + link.line() + ": link '" + link.target() + "': " + problem);
        }
      }
    }
    assertTrue(checked > 0, "no relative link found in " + pages);
    assertTrue(problems.isEmpty(), problems.size() + " broken link(s):\n  " + String.join("\n  ", problems));
  }

  @Test
  void headingsGetGitHubsAnchors() {
    assertEquals(List.of("securing-a-cluster-tls-and-per-role-tokens", "gleaner-status-and-gleaner-jobs",
            "every-attack-its-defence-and-what-shows-it", "the-closed-loop-measured", "paper-001-theorem_4",
            "faq", "faq-1", "what-it-does-", "a-b"),
        slugs(List.of("Securing a cluster: TLS and per-role tokens", "`gleaner status` and `gleaner jobs`",
            "Every attack, its defence and what shows it", "The closed loop, measured", "Paper 001, Theorem_4",
            "FAQ", "FAQ", "What it *does* (?)", "[A](x.md) b")));
  }

  @Test
  void linksInCodeAreNotLinksAndExternalOnesAreLeftAlone() {
    List<Link> found = links(String.join("\n",
        "See [the page](docs/a.md#part) and ![a figure](b.png \"title\").",
        "Not this: `[x](missing.md)`, nor ``[y](missing.md)``.",
        "```",
        "[z](missing.md)",
        "```",
        "[ref]: docs/c.md",
        "[web](https://example.org/x.md) [mail](mailto:a@b.c) [here](#top)"));
    assertEquals(List.of(new Link(1, "docs/a.md#part"), new Link(1, "b.png"), new Link(6, "docs/c.md"),
        new Link(7, "https://example.org/x.md"), new Link(7, "mailto:a@b.c"), new Link(7, "#top")), found);
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md").normalize());
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(p -> pages.add(p.normalize()));
    }
    return pages.stream().filter(Files::isRegularFile).toList();
  }

  /** Why {@code target}, linked from {@code page}, leads nowhere; null when it resolves or is not relative. */
  private static String check(Path page, String target, Map<Path, Set<String>> anchors) throws IOException {
    String lower = target.toLowerCase(Locale.ROOT);
    if (lower.startsWith("http://") || lower.startsWith("https://") || lower.startsWith("mailto:")) {
      return null;
    }
    if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
      return "not a relative link and not http(s) or mailto";
    }
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    int query = file.indexOf('?');
    if (query >= 0) {
      file = file.substring(0, query);
    }
    file = URLDecoder.decode(file.replace("+", "%2B"), StandardCharsets.UTF_8);
    Path linked;
    if (file.isEmpty()) {
      linked = page;
    } else if (file.startsWith("/")) {
      linked = ROOT.resolve(file.substring(1)).normalize();
    } else {
      linked = page.getParent().resolve(file).normalize();
    }
    if (!Files.exists(linked)) {
      return "no such file " + ROOT.relativize(linked) + " (resolved from " + ROOT.relativize(page) + ")";
    }
    if (anchor == null) {
      return null;
    }
    if (!linked.getFileName().toString().endsWith(".md")) {
      return null;
    }
    if (Files.isDirectory(linked)) {
      return "an anchor on a directory";
    }
    String wanted = URLDecoder.decode(anchor.replace("+", "%2B"), StandardCharsets.UTF_8);
    Set<String> known = anchors.computeIfAbsent(linked, p -> {
      try {
        return new LinkedHashSet<>(slugs(headings(Files.readString(p))));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    if (!known.contains(wanted)) {
      return "no heading of " + ROOT.relativize(linked) + " has the anchor '#" + wanted + "' (its anchors: "
          + String.join(", ", known) + ")";
    }
    return null;
  }

  /** The relative and absolute links of a Markdown text, outside fenced code blocks and code spans. */
  static List<Link> links(String markdown) {
    List<Link> links = new ArrayList<>();
    String[] lines = markdown.split("\n", -1);
    String fence = null;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      Matcher f = FENCE.matcher(line);
      if (fence != null) {
        if (f.find() && f.group(1).charAt(0) == fence.charAt(0) && f.group(1).length() >= fence.length()) {
          fence = null;
        }
        continue;
      }
      if (f.find()) {
        fence = f.group(1);
        continue;
      }
      String text = CODE_SPAN.matcher(line).replaceAll("");
      Matcher ref = REFERENCE.matcher(text);
      if (ref.find()) {
        links.add(new Link(i + 1, unbracket(ref.group(1))));
        continue;
      }
      Matcher m = INLINE.matcher(text);
      while (m.find()) {
        links.add(new Link(i + 1, unbracket(m.group(1))));
      }
    }
    return links;
  }

  private static String unbracket(String target) {
    return target.startsWith("<") && target.endsWith(">") ? target.substring(1, target.length() - 1) : target;
  }

  /** The text of every ATX heading, outside fenced code blocks. */
  static List<String> headings(String markdown) {
    List<String> headings = new ArrayList<>();
    String fence = null;
    for (String line : markdown.split("\n", -1)) {
      Matcher f = FENCE.matcher(line);
      if (fence != null) {
        if (f.find() && f.group(1).charAt(0) == fence.charAt(0) && f.group(1).length() >= fence.length()) {
          fence = null;
        }
        continue;
      }
      if (f.find()) {
        fence = f.group(1);
        continue;
      }
      Matcher h = ATX_HEADING.matcher(line);
      if (h.matches()) {
        headings.add(h.group(2));
      }
    }
    return headings;
  }

  /**
   * GitHub's anchors of these headings, in order: the heading's text (links reduced to their text,
   * code and emphasis marks dropped) lowercased, punctuation other than '-' and '_' dropped,
   * spaces turned into '-'; a repeated anchor gets -1, -2, ...
   */
  static List<String> slugs(List<String> headings) {
    Map<String, Integer> seen = new HashMap<>();
    List<String> slugs = new ArrayList<>();
    for (String heading : headings) {
      String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").replace("*", "");
      StringBuilder slug = new StringBuilder();
      text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
        if (c == ' ') {
          slug.append('-');
        } else if (c == '-' || c == '_' || Character.isLetterOrDigit(c)) {
          slug.appendCodePoint(c);
        }
      });
      String base = slug.toString();
      int n = seen.merge(base, 1, Integer::sum) - 1;
      slugs.add(n == 0 ? base : base + "-" + n);
    }
    return slugs;
  }
}
