#!/bin/sh
# The image's Java, in the build stage (Dockerfile): Anserini's fatjar cut by
# scripts/docker-trim-jar.py, then a runtime made by jlink from Debian's JDK with the modules
# jdeps finds in what runs on it (the jar's classes left, the harness's own classes and pyjnius's),
# plus and minus the declared ones of scripts/java-modules (what jdeps cannot see: modules loaded
# as services or by reflection).
#   scripts/docker-java.sh SITE_PACKAGES OUTPUT
set -eu
site=$1 out=$2
here=$(dirname "$0")
jar=$(echo "$site"/pyserini/resources/jars/anserini-*-fatjar.jar)
[ -f "$jar" ] || { echo "docker-java.sh: no Anserini fatjar under $site/pyserini" >&2; exit 1; }
found=$(mktemp)
python3 "$here/docker-trim-jar.py" "$jar" "$found"
# The harness's classes and pyjnius's (its proxy for Java interfaces), which run beside the jar
# (what they use of the jar is the jar's business above).
jdeps --print-module-deps --ignore-missing-deps "$here/../harness/engine/java" "$site/jnius/src" >"$found.more"
tr ',' '\n' <"$found.more" >>"$found"
rm -f "$found.more"
add=$(sed -n 's/^\([a-z][a-z.]*\).*/\1/p' "$here/java-modules")
drop=$(sed -n 's/^-\([a-z][a-z.]*\).*/\1/p' "$here/java-modules")
for m in $add $drop $(cat "$found"); do   # a module this JDK does not have is a change to look at
  java --list-modules | grep -q "^$m@" || { echo "docker-java.sh: the JDK has no module $m (jdeps or scripts/java-modules named it)" >&2; exit 1; }
done
modules=$( (cat "$found"; printf '%s\n' $add) | grep -vxF "$(printf '%s\n' $drop)" | sort -u | paste -sd, -)
rm -f "$found"
case ",$modules," in *,java.base,*) ;; *) echo "docker-java.sh: jdeps found no modules ($modules)" >&2; exit 1 ;; esac
echo "docker-java.sh: jlink --add-modules $modules" >&2
# Debug attributes stripped, the module image compressed, without the native libraries of
# java.desktop that link X11, ALSA, FreeType, libjpeg or Little CMS (none of which the image has,
# so they could never load; java.beans, which log4j uses, is Java), nor libjawt, which links the
# X11 one. Then the static symbol tables of its native code go (strip --strip-unneeded, as for
# the wheels: libjvm 29.8 -> 24.8 MB; the dynamic symbols JNI and pyjnius resolve stay).
jlink --add-modules "$modules" \
  --include-locales=en,th --strip-java-debug-attributes --strip-native-debug-symbols=exclude-debuginfo-files \
  --no-man-pages --no-header-files --compress=zip-6 \
  --exclude-files='**/libawt_xawt.so,**/libjawt.so,**/libfontmanager.so,**/libjavajpeg.so,**/liblcms.so,**/libsplashscreen.so,**/libjsound.so' \
  --output "$out"
find "$out" \( -name '*.so' -o -path "$out/bin/*" \) -type f -exec strip --strip-unneeded {} +
