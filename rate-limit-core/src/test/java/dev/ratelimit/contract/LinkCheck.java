package dev.ratelimit.contract;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Whether the project's compiled classes link against the libraries on the running class path:
 * every method and field they name in a class of {@code prefix} ({@code org/springframework/})
 * must exist there with the same descriptor. For the Spring lines a module is compiled against
 * one line and run on others (docs/design.md §7.5): a call that only the newer line has is a
 * {@code NoSuchMethodError} on the first request that runs it, which a test of the other line
 * sees only if it happens to run that code. Classes absent from the class path (optional
 * features) are left out: their code runs only behind a condition on them.
 */
public final class LinkCheck {
  private LinkCheck() {}

  /**
   * The references of the classes in the jar or directory holding {@code anchor} to members of
   * {@code prefix} that do not resolve here, as {@code Owner.name:descriptor (in Class)};
   * classes in {@code skipped} (their simple names) call each line's own member on purpose.
   */
  public static Set<String> unresolved(Class<?> anchor, String prefix, Set<String> skipped) throws IOException {
    Set<String> missing = new TreeSet<>();
    for (Clazz clazz : classes(anchor)) {
      String simple = clazz.name.substring(clazz.name.lastIndexOf('/') + 1);
      if (skipped.contains(simple.replaceAll("\\$.*", ""))) {
        continue;
      }
      for (String ref : clazz.references) {
        if (ref.startsWith(prefix) && !resolves(ref)) {
          missing.add(ref + " (in " + clazz.name.replace('/', '.') + ")");
        }
      }
    }
    return missing;
  }

  private record Clazz(String name, List<String> references) {}

  private static List<Clazz> classes(Class<?> anchor) throws IOException {
    Path location;
    try {
      location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    List<Clazz> classes = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
          try (InputStream in = Files.newInputStream(file)) {
            classes.add(read(in));
          }
        }
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        for (JarEntry entry : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
          if (!entry.getName().endsWith("module-info.class")) {
            try (InputStream in = jar.getInputStream(entry)) {
              classes.add(read(in));
            }
          }
        }
      }
    }
    return classes;
  }

  /** The class's name and its Fieldref, Methodref and InterfaceMethodref entries, as {@code Owner.name:descriptor}. */
  private static Clazz read(InputStream stream) throws IOException {
    DataInputStream in = new DataInputStream(stream);
    in.readInt(); // magic
    in.readUnsignedShort();
    in.readUnsignedShort();
    int count = in.readUnsignedShort();
    Object[] pool = new Object[count];
    int[][] refs = new int[count][];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> pool[i] = in.readUTF();
        case 3, 4 -> in.readInt();
        case 5, 6 -> {
          in.readLong();
          i++;
        }
        case 7, 8, 16, 19, 20 -> refs[i] = new int[] {tag, in.readUnsignedShort()};
        case 9, 10, 11, 12, 17, 18 -> refs[i] = new int[] {tag, in.readUnsignedShort(), in.readUnsignedShort()};
        case 15 -> {
          in.readUnsignedByte();
          in.readUnsignedShort();
        }
        default -> throw new IOException("constant pool tag " + tag);
      }
    }
    in.readUnsignedShort(); // access flags
    String name = (String) pool[refs[in.readUnsignedShort()][1]];
    List<String> references = new ArrayList<>();
    for (int[] ref : refs) {
      if (ref != null && (ref[0] == 9 || ref[0] == 10 || ref[0] == 11)) {
        String owner = (String) pool[refs[ref[1]][1]];
        int[] nameAndType = refs[ref[2]];
        references.add(owner + "." + pool[nameAndType[1]] + ":" + pool[nameAndType[2]]);
      }
    }
    return new Clazz(name, references);
  }

  private static boolean resolves(String ref) {
    int dot = ref.indexOf('.');
    int colon = ref.indexOf(':');
    String ownerName = ref.substring(0, dot);
    String member = ref.substring(dot + 1, colon);
    String descriptor = ref.substring(colon + 1);
    if (ownerName.startsWith("[")) {
      return true; // an array's clone()
    }
    Class<?> owner;
    try {
      owner = Class.forName(ownerName.replace('/', '.'), false, LinkCheck.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError absent) {
      return true; // an optional feature's class: its code runs only behind a condition on it
    }
    if (!descriptor.startsWith("(")) {
      return field(owner, member);
    }
    return method(owner, member, descriptor);
  }

  private static boolean field(Class<?> owner, String name) {
    for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
      if (Arrays.stream(c.getDeclaredFields()).map(Field::getName).anyMatch(name::equals)
          || Arrays.stream(c.getInterfaces()).anyMatch(i -> field(i, name))) {
        return true;
      }
    }
    return false;
  }

  private static boolean method(Class<?> owner, String name, String descriptor) {
    if (owner == null) {
      return false;
    }
    if (name.equals("<init>")) {
      return Arrays.stream(owner.getDeclaredConstructors())
          .anyMatch(c -> descriptor(c.getParameterTypes(), void.class).equals(descriptor));
    }
    for (Method m : owner.getDeclaredMethods()) {
      if (m.getName().equals(name) && descriptor(m.getParameterTypes(), m.getReturnType()).equals(descriptor)) {
        return true;
      }
    }
    if (method(owner.getSuperclass(), name, descriptor)
        || Arrays.stream(owner.getInterfaces()).anyMatch(i -> method(i, name, descriptor))) {
      return true;
    }
    return owner.isInterface() && method(Object.class, name, descriptor);
  }

  private static String descriptor(Class<?>[] parameters, Class<?> result) {
    return Arrays.stream(parameters).map(LinkCheck::type).collect(Collectors.joining("", "(", ")")) + type(result);
  }

  private static String type(Class<?> type) {
    if (type.isArray()) {
      return "[" + type(type.getComponentType());
    }
    if (!type.isPrimitive()) {
      return "L" + type.getName().replace('.', '/') + ";";
    }
    return switch (type.getName()) {
      case "int" -> "I";
      case "long" -> "J";
      case "boolean" -> "Z";
      case "double" -> "D";
      case "float" -> "F";
      case "byte" -> "B";
      case "char" -> "C";
      case "short" -> "S";
      default -> "V";
    };
  }
}
