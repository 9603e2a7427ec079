package io.vecflow.lab.out;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.text.DecimalFormat;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * PNG plots of lab results for people without Grafana, drawn with JFreeChart (headless): line charts of a metric
 * against load, one series per dispatcher or scheme, and bar charts; every chart has a title, labelled axes and a
 * legend. Size {@value #WIDTH} × {@value #HEIGHT} pixels.
 */
public final class Plots {
    /** Image width, pixels. */
    public static final int WIDTH = 1000;
    /** Image height, pixels. */
    public static final int HEIGHT = 640;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    /** Distinct, print-safe colours (Tableau 10), cycled over series. */
    private static final Color[] PALETTE = {new Color(0x4E79A7), new Color(0xF28E2B), new Color(0xE15759),
        new Color(0x76B7B2), new Color(0x59A14F), new Color(0xB07AA1), new Color(0xEDC948), new Color(0xFF9DA7),
        new Color(0x9C755F), new Color(0x222222), new Color(0xBAB0AC), new Color(0x8CD17D), new Color(0x499894)};

    private Plots() {}

    /**
     * A line chart: each series is a list of (x, y) points, drawn in insertion order with markers.
     *
     * @param file PNG to write
     * @param title chart title
     * @param xLabel x-axis label (with unit)
     * @param yLabel y-axis label (with unit)
     * @param series legend name → points {x, y}; points with a non-finite or (log axis) non-positive y are skipped
     * @param logY logarithmic y axis
     * @throws IOException on write failure
     */
    public static void lines(Path file, String title, String xLabel, String yLabel, Map<String, double[][]> series,
            boolean logY) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Map.Entry<String, double[][]> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey(), true, true);
            for (double[] p : e.getValue()) {
                if (Double.isFinite(p[1]) && (!logY || p[1] > 0)) {
                    s.add(p[0], p[1]);
                }
            }
            data.addSeries(s);
        }
        NumberAxis x = new NumberAxis(xLabel);
        x.setAutoRangeIncludesZero(false);
        ValueAxis y;
        if (logY) {
            LogAxis la = new LogAxis(yLabel);
            la.setBase(10);
            la.setSmallestValue(1e-3);
            la.setStandardTickUnits(NumberAxis.createStandardTickUnits());
            la.setNumberFormatOverride(new DecimalFormat("0.#"));
            y = la;
        } else {
            NumberAxis na = new NumberAxis(yLabel);
            na.setAutoRangeIncludesZero(true);
            y = na;
        }
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesStroke(i, new BasicStroke(2f));
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
        }
        XYPlot plot = new XYPlot(data, x, y, r);
        style(plot);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    }

    /**
     * A bar chart of one value per category, grouped by series.
     *
     * @param file PNG to write
     * @param title chart title
     * @param categoryLabel category axis label
     * @param valueLabel value axis label (with unit)
     * @param values series (legend) → category → value; non-finite values are left out
     * @throws IOException on write failure
     */
    public static void bars(Path file, String title, String categoryLabel, String valueLabel,
            Map<String, Map<String, Double>> values) throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (Map.Entry<String, Map<String, Double>> s : values.entrySet()) {
            for (Map.Entry<String, Double> c : s.getValue().entrySet()) {
                if (Double.isFinite(c.getValue())) {
                    data.addValue(c.getValue(), s.getKey(), c.getKey());
                }
            }
        }
        CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(categoryLabel), new NumberAxis(valueLabel),
                new BarRenderer());
        BarRenderer br = (BarRenderer) plot.getRenderer();
        br.setShadowVisible(false);
        br.setBarPainter(new org.jfree.chart.renderer.category.StandardBarPainter());
        for (int i = 0; i < data.getRowCount(); i++) {
            br.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
        }
        plot.setBackgroundPaint(new Color(0xF4F4F4));
        plot.setRangeGridlinePaint(Color.GRAY);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    }

    private static void style(XYPlot plot) {
        if (plot != null) {
            plot.setBackgroundPaint(new Color(0xF4F4F4));
            plot.setDomainGridlinePaint(Color.GRAY);
            plot.setRangeGridlinePaint(Color.GRAY);
        }
    }

    /** @return a new insertion-ordered series map (convenience for callers) */
    public static <V> Map<String, V> ordered() {
        return new LinkedHashMap<>();
    }
}
