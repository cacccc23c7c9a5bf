package dev.gleaner.master.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The lines some classes log while it is open: a test reads what an operator would see. */
public final class LogLines implements AutoCloseable {
  private final List<Logger> loggers = new ArrayList<>();
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogLines(List<String> names) {
    appender.start();
    for (String name : names) {
      Logger l = (Logger) LoggerFactory.getLogger(name);
      l.addAppender(appender);
      loggers.add(l);
    }
  }

  /** Starts listening to the loggers of {@code sources}. */
  public static LogLines of(Class<?>... sources) {
    return new LogLines(java.util.Arrays.stream(sources).map(Class::getName).toList());
  }

  /** Starts listening to the loggers named so (classes a test cannot name: package-private ones). */
  public static LogLines of(String... names) {
    return new LogLines(List.of(names));
  }

  /** The events so far (a copy: logging goes on meanwhile). */
  public List<ILoggingEvent> events() {
    // the appender adds under its own lock (AppenderBase.doAppend)
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }

  /** The formatted messages so far. */
  public List<String> messages() {
    return events().stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Override
  public void close() {
    loggers.forEach(l -> l.detachAppender(appender));
  }
}
