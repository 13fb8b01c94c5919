import java.io.*;
import java.util.*;

public class Main {
    static class Meeting implements Comparable<Meeting> {
        int l, r;
        Meeting(int l, int r) { this.l = l; this.r = r; }
        public int compareTo(Meeting o) {
            if (r != o.r) return Integer.compare(r, o.r);
            return Integer.compare(l, o.l);
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        Meeting[] ms = new Meeting[n];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            ms[i] = new Meeting(Integer.parseInt(st.nextToken()), Integer.parseInt(st.nextToken()));
        }
        Arrays.sort(ms);
        int ans = 0;
        long last = -1;
        for (Meeting m : ms) {
            if (m.l >= last) {
                ans++;
                last = m.r;
            }
        }
        System.out.println(ans);
    }
}
