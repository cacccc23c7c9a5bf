package dev.gleaner.worker.owner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The owner activity sources a worker is started with, by name. */
public final class OwnerSources {
  private static final Logger log = LoggerFactory.getLogger(OwnerSources.class);
  /** The names, for the worker's option help. */
  public static final String NAMES = "input (keyboard and mouse interrupts), sessions (logins), load (other processes'"
      + " CPU), x (X idle time through xprintidle), desktop (all of them that this computer has), none";

  private OwnerSources() {}

  /**
   * The sources named, plus the owner file if given.
   *
   * @throws IllegalArgumentException for an unknown name, or a source this computer cannot offer
   */
  public static List<OwnerActivity> of(List<String> names, Path ownerFile) {
    Set<String> wanted = new LinkedHashSet<>();
    for (String n : names) {
      String name = n.trim().toLowerCase(Locale.ROOT);
      switch (name) {
        case "desktop" -> wanted.add("desktop");
        case "input", "sessions", "load", "x", "none" -> wanted.add(name);
        default -> throw new IllegalArgumentException("'" + n + "' is not an owner activity source; known: " + NAMES);
      }
    }
    if (wanted.contains("none") && wanted.size() > 1) {
      throw new IllegalArgumentException("owner sources 'none' and " + wanted + " exclude each other");
    }
    List<OwnerActivity> out = new ArrayList<>();
    boolean desktop = wanted.contains("desktop");
    if (desktop || wanted.contains("input")) {
      InputInterrupts input = InputInterrupts.system();
      boolean sees;
      try {
        sees = input.seesAny();
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read /proc/interrupts for the input source: " + e.getMessage(), e);
      }
      if (sees) {
        out.add(input);
      } else if (wanted.contains("input")) {
        throw new IllegalArgumentException("no keyboard or mouse interrupts in /proc/interrupts (USB keyboards share"
            + " their controller's): see the owner through sessions or x instead of input");
      } else {
        log.info("no keyboard or mouse interrupts in /proc/interrupts: the owner's input is seen through logins"
            + " and X only");
      }
    }
    if (desktop || wanted.contains("sessions")) {
      out.add(LoginSessions.system());
    }
    if (desktop || wanted.contains("load")) {
      out.add(OtherLoad.system());
    }
    if (desktop || wanted.contains("x")) {
      XIdle x = XIdle.find(System.getenv("PATH"), System.getenv("DISPLAY"));
      if (x != null) {
        out.add(x);
      } else if (wanted.contains("x")) {
        throw new IllegalArgumentException("the x owner source needs xprintidle on the PATH and DISPLAY set");
      } else {
        log.info("no xprintidle on the PATH or no DISPLAY: X idle time is not watched");
      }
    }
    if (ownerFile != null) {
      out.add(new OwnerFile(ownerFile));
    }
    return out;
  }
}
