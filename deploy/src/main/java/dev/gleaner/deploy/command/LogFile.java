package dev.gleaner.deploy.command;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.util.FileSize;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * {@code --log-file FILE} for the daemons: the log also goes to FILE, rolled daily and at
 * {@link #MAX_FILE} into FILE.YYYY-MM-DD.N.gz, at most {@link #MAX_HISTORY_DAYS} days and
 * {@link #TOTAL_CAP} in all kept (Logback's rolling appender), so a master that runs for months
 * cannot fill its disk with logs.
 */
final class LogFile {
  static final String MAX_FILE = "50MB";
  static final int MAX_HISTORY_DAYS = 14;
  static final String TOTAL_CAP = "1GB";

  private LogFile() {}

  /** Adds the rolling file to the root logger (the stderr log stays); closing it takes the file away again. */
  static AutoCloseable install(Path file) {
    Path abs = file.toAbsolutePath();
    Path dir = abs.getParent();
    if (dir != null && !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--log-file " + file + ": directory " + dir + " does not exist");
    }
    if (Files.isDirectory(abs)) {
      throw new IllegalArgumentException("--log-file " + file + " is a directory; name a file in it");
    }
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
    appender.setContext(context);
    appender.setName("FILE");
    appender.setFile(abs.toString());
    SizeAndTimeBasedRollingPolicy<ILoggingEvent> policy = new SizeAndTimeBasedRollingPolicy<>();
    policy.setContext(context);
    policy.setParent(appender);
    policy.setFileNamePattern(abs + ".%d{yyyy-MM-dd}.%i.gz");
    policy.setMaxFileSize(FileSize.valueOf(MAX_FILE));
    policy.setMaxHistory(MAX_HISTORY_DAYS);
    policy.setTotalSizeCap(FileSize.valueOf(TOTAL_CAP));
    policy.start();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    // the date too: a file outlives a day
    encoder.setPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level %logger{0} - %msg%n");
    encoder.start();
    appender.setRollingPolicy(policy);
    appender.setEncoder(encoder);
    appender.start();
    if (!appender.isStarted()) {
      throw new IllegalArgumentException("--log-file " + file + ": cannot write it");
    }
    // written by a thread of its own, as the stderr log is (see logback.xml): nothing dropped, and
    // what is queued is written when it is taken away or at exit
    AsyncAppender async = new AsyncAppender();
    async.setContext(context);
    async.setName("ASYNC-FILE");
    async.setQueueSize(8192);
    async.setDiscardingThreshold(0);
    async.setNeverBlock(false);
    async.addAppender(appender);
    async.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.addAppender(async);
    return () -> {
      root.detachAppender(async);
      async.stop();
      appender.stop();
    };
  }
}
