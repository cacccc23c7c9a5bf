package dev.gleaner.deploy.format;

import java.math.BigDecimal;
import picocli.CommandLine;

/**
 * Whole numbers as people write them on a command line and in job files: {@code 2000000},
 * {@code 2e6}, {@code 2.5e9}, {@code 1_000_000}. A value with a fraction or beyond a long is refused
 * with its text in the message.
 */
public final class WholeNumber implements CommandLine.ITypeConverter<Long> {
  @Override
  public Long convert(String text) {
    String t = text.strip().replace("_", "");
    try {
      return Long.parseLong(t);
    } catch (NumberFormatException notPlain) {
      BigDecimal d;
      try {
        d = new BigDecimal(t);
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException("'" + text + "' is not a number");
      }
      try {
        return d.longValueExact();
      } catch (ArithmeticException e) {
        throw new CommandLine.TypeConversionException("'" + text + "' is not a whole number in range");
      }
    }
  }
}
