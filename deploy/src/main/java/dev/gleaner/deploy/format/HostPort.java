package dev.gleaner.deploy.format;

import picocli.CommandLine;

/** {@code HOST:PORT}, as typed after {@code --master}. */
public record HostPort(String host, int port) {
  static final int DEFAULT_PORT = 7070;

  static HostPort parse(String text) {
    String s = text.trim();
    int colon = s.lastIndexOf(':');
    if (colon < 0) {
      return new HostPort(s, DEFAULT_PORT);
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int port = Integer.parseInt(s.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return new HostPort(host.isEmpty() ? "localhost" : host, port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not HOST:PORT with a port from 1 to 65535");
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }

  /** picocli converter. */
  public static final class Converter implements CommandLine.ITypeConverter<HostPort> {
    @Override
    public HostPort convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
