package dev.gleaner.worker.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.worker.owner.OwnerActivity.Observation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each Linux source on files made up in a temporary folder. */
class OwnerSourcesTest {
  private static final Instant NOW = Instant.parse("2026-11-28T10:00:00Z");

  @TempDir
  Path dir;

  @Test
  void theOwnerFileSaysBusyIdleOrNothing() throws IOException {
    Path f = dir.resolve("owner");
    OwnerFile source = new OwnerFile(f);
    assertNull(source.observe(NOW).lastInput(), "no file: absent");
    Files.writeString(f, "busy\n");
    assertEquals(NOW, source.observe(NOW).lastInput());
    Files.writeString(f, "idle\n");
    assertNull(source.observe(NOW).lastInput());
    Files.writeString(f, "");
    assertEquals(NOW, source.observe(NOW).lastInput(), "an empty file: present");
    Files.writeString(f, "maybe");
    assertEquals(NOW, source.observe(NOW).lastInput(), "anything else: present, and logged");
  }

  @Test
  void inputInterruptsSeeTheKeyboardWhenItsCountMoves() throws IOException {
    Path f = dir.resolve("interrupts");
    String header = "           CPU0       CPU1\n";
    Files.writeString(f, header + "  1:          9          2   IO-APIC   1-edge      i8042\n"
        + " 14:       5000       4000   IO-APIC  14-edge      ata_piix\n");
    InputInterrupts source = new InputInterrupts(f);
    assertTrue(source.seesAny());
    assertNull(source.observe(NOW).lastInput(), "the first look has nothing to compare with");
    Files.writeString(f, header + "  1:          9          2   IO-APIC   1-edge      i8042\n"
        + " 14:       9000       4000   IO-APIC  14-edge      ata_piix\n");
    assertNull(source.observe(NOW.plusSeconds(1)).lastInput(), "disk interrupts are not the owner");
    Files.writeString(f, header + "  1:         12          2   IO-APIC   1-edge      i8042\n"
        + " 14:       9000       4000   IO-APIC  14-edge      ata_piix\n");
    assertEquals(NOW.plusSeconds(2), source.observe(NOW.plusSeconds(2)).lastInput());
    assertEquals(NOW.plusSeconds(2), source.observe(NOW.plusSeconds(3)).lastInput(), "remembered");
    assertEquals(-1, InputInterrupts.count(List.of(header, " 14:  1  2  IO-APIC 14-edge ata_piix")));
  }

  @Test
  void loginsCountFromTheirTerminalsLastInputAndAGraphicalLoginAsPresent() throws IOException {
    Path dev = Files.createDirectories(dir.resolve("dev"));
    Path pts = Files.createDirectories(dev.resolve("pts"));
    Path tty = Files.createFile(pts.resolve("0"));
    Instant typed = NOW.minusSeconds(600);
    Files.getFileAttributeView(tty, BasicFileAttributeView.class).setTimes(null, FileTime.from(typed), null);
    Path utmp = dir.resolve("utmp");
    Files.write(utmp, utmp(new String[][] {{"8", "bob", "pts/1"}, {"7", "alice", "pts/0"}}));
    Observation o = new LoginSessions(utmp, dev).observe(NOW);
    assertEquals(typed, o.lastInput(), "alice typed 10 minutes ago; bob's session is over");
    assertTrue(o.detail().contains("alice on pts/0"), o.detail());
    Files.write(utmp, utmp(new String[][] {{"7", "alice", "pts/0"}, {"7", "carol", ":0"}}));
    assertEquals(NOW, new LoginSessions(utmp, dev).observe(NOW).lastInput(), "carol is at the display");
    Files.write(utmp, new byte[100]);
    IOException e = assertThrows(IOException.class, () -> new LoginSessions(utmp, dev).observe(NOW));
    assertTrue(e.getMessage().contains("384"), e.getMessage());
  }

  private static byte[] utmp(String[][] records) {
    ByteBuffer b = ByteBuffer.allocate(records.length * LoginSessions.RECORD).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < records.length; i++) {
      int at = i * LoginSessions.RECORD;
      b.putShort(at, Short.parseShort(records[i][0]));
      byte[] user = records[i][1].getBytes(StandardCharsets.UTF_8);
      byte[] line = records[i][2].getBytes(StandardCharsets.UTF_8);
      b.put(at + 44, user);
      b.put(at + 8, line);
    }
    return b.array();
  }

  @Test
  void otherLoadIsTheBusyCoresLessThisWorkersOwnProcessTree() throws IOException {
    Path proc = dir.resolve("proc");
    Files.createDirectories(proc.resolve("100"));
    Files.createDirectories(proc.resolve("200"));
    List<Long> pids = new ArrayList<>(List.of(100L, 200L));
    OtherLoad source = new OtherLoad(proc, () -> pids);
    // 4 CPUs; columns: user nice system idle iowait irq softirq steal guest guest_nice
    stat(proc, 1000, 0, 0, 3000, 0);
    own(proc, 100, 300, 100, 0, 0);
    own(proc, 200, 50, 0, 0, 0);
    assertTrue(Double.isNaN(source.observe(NOW).load()), "one look: no rate yet");
    // 400 ticks pass on 4 CPUs (100 per CPU): 250 busy, of which this worker's tree used 200
    stat(proc, 1200, 0, 50, 3150, 0);
    own(proc, 100, 450, 100, 0, 0);
    own(proc, 200, 100, 0, 0, 0);
    assertEquals(0.5, source.observe(NOW.plusSeconds(1)).load(), 1e-9, "50 other ticks of 400 on 4 CPUs");
    // the exec program ends: its ticks move into its parent's cutime, and nothing is counted twice
    pids.remove(200L);
    Files.delete(proc.resolve("200").resolve("stat"));
    stat(proc, 1600, 0, 50, 3150, 0);
    own(proc, 100, 850, 100, 100, 0);
    assertEquals(0.0, source.observe(NOW.plusSeconds(2)).load(), 1e-9, "all 400 ticks were this worker's");
  }

  private static void stat(Path proc, long user, long nice, long system, long idle, long iowait) throws IOException {
    Files.writeString(proc.resolve("stat"), "cpu  " + user + " " + nice + " " + system + " " + idle + " " + iowait
        + " 0 0 0 0 0\ncpu0 1 1 1 1 1 0 0 0 0 0\ncpu1 1 1 1 1 1 0 0 0 0 0\ncpu2 1 1 1 1 1 0 0 0 0 0\n"
        + "cpu3 1 1 1 1 1 0 0 0 0 0\nintr 12345\n");
  }

  private static void own(Path proc, long pid, long utime, long stime, long cutime, long cstime) throws IOException {
    Files.writeString(proc.resolve(Long.toString(pid)).resolve("stat"), pid + " (java (a) b) S 1 1 1 0 -1 4194304 1 0"
        + " 0 0 " + utime + " " + stime + " " + cutime + " " + cstime + " 20 0 30 0 100 1000 200\n");
  }
}
