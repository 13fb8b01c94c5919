import java.io.*;
import java.util.*;

public class Main {
    static class Event implements Comparable<Event> {
        int time, delta;
        Event(int time, int delta) { this.time = time; this.delta = delta; }
        public int compareTo(Event o) {
            if (time != o.time) return Integer.compare(time, o.time);
            return Integer.compare(delta, o.delta); // ends (-1) before starts (+1)
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        Event[] ev = new Event[2 * n];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            ev[2 * i] = new Event(Integer.parseInt(st.nextToken()), 1);
            ev[2 * i + 1] = new Event(Integer.parseInt(st.nextToken()), -1);
        }
        Arrays.sort(ev);
        int cur = 0;
        int ans = 0;
        for (Event e : ev) {
            cur += e.delta;
            ans = Math.max(ans, cur);
        }
        System.out.println(ans);
    }
}
