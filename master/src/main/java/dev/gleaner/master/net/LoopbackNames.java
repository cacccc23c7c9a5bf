package dev.gleaner.master.net;

/**
 * The names of this machine's loopback in an HTTP request's Host: what a port bound to loopback
 * (the master's web page, a worker's metrics) answers without a credential.
 */
public final class LoopbackNames {
  private LoopbackNames() {}

  /**
   * Whether a request's Host names this machine's loopback ({@code localhost}, {@code 127.x.x.x},
   * {@code [::1]}, any port), or is absent (not a browser: browsers always send one). Any other name
   * on a loopback connection may be a web site whose name was rebound to this machine, reading the
   * status through its visitor's browser: such a request needs a credential like a remote one.
   */
  public static boolean named(String host) {
    if (host == null) {
      return true;
    }
    String h = host.strip().toLowerCase(java.util.Locale.ROOT);
    if (h.startsWith("[")) {
      int close = h.indexOf(']');
      if (close < 0 || !h.substring(close + 1).matches("(:\\d+)?")) {
        return false; // only a port may follow an IPv6 literal
      }
      h = h.substring(1, close);
    } else if (h.indexOf(':') >= 0) {
      h = h.substring(0, h.indexOf(':'));
    }
    if (h.equals("localhost") || h.endsWith(".localhost")) {
      return true;
    }
    byte[] ip = io.netty.util.NetUtil.createByteArrayFromIpAddressString(h);
    try {
      return ip != null && java.net.InetAddress.getByAddress(ip).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false; // not an address of 4 or 16 bytes: not a loopback literal
    }
  }
}
