package dev.gleaner.worker.owner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Keyboard and mouse input as the kernel counts it: the interrupts of input devices in
 * {@code /proc/interrupts} (PS/2 keyboards and mice on {@code i8042}, I2C touchpads and other
 * lines named for a keyboard, mouse, touchpad or HID). When their count moved since the last look,
 * the owner used the computer now. USB keyboards share their controller's interrupt with other
 * devices and are not seen here: a login on a terminal is, through {@link LoginSessions}, and an X
 * session through {@link XIdle}.
 */
public final class InputInterrupts implements OwnerActivity {
  /** Parts of a device name in /proc/interrupts that make it an input device. */
  static final List<String> INPUT_NAMES = List.of("i8042", "keyboard", "kbd", "mouse", "touchpad", "hid");

  private final Path file;
  private long lastCount = -1;
  private Instant lastInput;

  public InputInterrupts(Path file) {
    this.file = file;
  }

  /** The kernel's own {@code /proc/interrupts}. */
  public static InputInterrupts system() {
    return new InputInterrupts(Path.of("/proc/interrupts"));
  }

  /** Whether this computer has input devices this source can see. */
  public boolean seesAny() throws IOException {
    return count(Files.readAllLines(file)) >= 0;
  }

  @Override
  public String name() {
    return "input-device interrupts in " + file;
  }

  @Override
  public Observation observe(Instant now) throws IOException {
    long count = count(Files.readAllLines(file));
    if (lastCount >= 0 && count != lastCount) {
      lastInput = now;
    }
    lastCount = count;
    return lastInput == null ? Observation.nothing() : Observation.input(lastInput, "keyboard or mouse input");
  }

  /** The interrupts of the input lines, summed over the CPUs; -1 when no line is an input device. */
  static long count(List<String> lines) {
    long sum = -1;
    for (String line : lines) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String[] f = line.substring(colon + 1).trim().split("\\s+");
      String names = line.substring(colon + 1).toLowerCase(Locale.ROOT);
      if (INPUT_NAMES.stream().noneMatch(names::contains)) {
        continue;
      }
      long n = 0;
      for (String x : f) {
        if (!x.chars().allMatch(Character::isDigit) || x.isEmpty()) {
          break;
        }
        n += Long.parseLong(x);
      }
      sum = Math.max(sum, 0) + n;
    }
    return sum;
  }
}
