package dev.gleaner.deploy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * The command-line reference, {@code docs/cli.md}: every command's {@code --help}, as picocli prints
 * it, one section each. The build writes it ({@code process-classes} of the deploy module), so the
 * page cannot drift from the commands.
 */
public final class CliReference {
  private CliReference() {}

  /** Writes the reference to the file named by the one argument; exits 2 without one. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: CliReference FILE (the markdown page to write)");
      System.exit(2);
    }
    Path file = Path.of(args[0]);
    String text = markdown();
    if (!Files.exists(file) || !Files.readString(file, StandardCharsets.UTF_8).equals(text)) {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    }
  }

  /** The whole page. */
  public static String markdown() {
    CommandLine root = Gleaner.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    List<CommandLine> all = new ArrayList<>();
    walk(root, all);
    StringBuilder sb = new StringBuilder();
    sb.append("# Command-line reference\n\n")
        .append("Every `gleaner` command's `--help`, as the command prints it. The build writes this page from the\n")
        .append("commands themselves (`CliReference`, run by `mvn package`), so it cannot drift from them; the\n")
        .append("[README](../README.md#commands) has the one-line table, and the other pages in `docs/` say when to use\n")
        .append("each.\n\n");
    for (CommandLine c : all) {
      String name = c.getCommandSpec().qualifiedName();
      if (c == root) {
        continue;
      }
      sb.append("- [").append(name).append("](#").append(name.replace(' ', '-')).append(")\n");
    }
    for (CommandLine c : all) {
      sb.append("\n## ").append(c.getCommandSpec().qualifiedName()).append("\n\n```\n");
      sb.append(c.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n");
    }
    return sb.toString();
  }

  private static void walk(CommandLine c, List<CommandLine> into) {
    if (c.getCommandSpec().usageMessage().hidden()) {
      return;
    }
    into.add(c);
    for (CommandLine sub : c.getSubcommands().values()) {
      if (!into.contains(sub) && !isHelp(sub)) {
        walk(sub, into);
      }
    }
  }

  private static boolean isHelp(CommandLine c) {
    return c.getCommand() instanceof CommandLine.HelpCommand
        || c.getCommand() instanceof picocli.AutoComplete.GenerateCompletion;
  }
}
