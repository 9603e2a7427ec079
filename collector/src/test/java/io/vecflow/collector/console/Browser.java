package io.vecflow.collector.console;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through its chromedriver by Selenium, for the console's browser tests.
 * Construction fails (never skips) when {@code /usr/bin/chromium} or {@code /usr/bin/chromedriver} is missing
 * (override with {@code VECFLOW_CHROMIUM} / {@code VECFLOW_CHROMEDRIVER}); Debian packages {@code chromium} and
 * {@code chromium-driver}, which scripts/test.sh installs.
 */
public final class Browser implements AutoCloseable {
    private final ChromeDriver driver;

    /**
     * Starts a headless browser (1400×900, no sandbox: CI runs as root).
     *
     * @throws IllegalStateException naming the missing binary and the Debian package that has it
     */
    public Browser() {
        Path chromium = Path.of(env("VECFLOW_CHROMIUM", "/usr/bin/chromium"));
        Path chromedriver = Path.of(env("VECFLOW_CHROMEDRIVER", "/usr/bin/chromedriver"));
        if (!Files.isExecutable(chromium)) {
            throw new IllegalStateException("no Chromium at " + chromium + ": install Debian's chromium "
                    + "(apt-get install chromium chromium-driver; scripts/test.sh does)");
        }
        if (!Files.isExecutable(chromedriver)) {
            throw new IllegalStateException("no chromedriver at " + chromedriver + ": install Debian's "
                    + "chromium-driver (apt-get install chromium-driver; scripts/test.sh does)");
        }
        ChromeOptions o = new ChromeOptions();
        o.setBinary(chromium.toFile());
        o.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900", "--no-first-run", "--disable-extensions", "--lang=en-US");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        o.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort().build();
        driver = new ChromeDriver(service, o);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
    }

    /** @return the Selenium driver. */
    public ChromeDriver driver() {
        return driver;
    }

    /**
     * Opens a URL.
     *
     * @param url the page
     */
    public void open(String url) {
        driver.get(url);
    }

    /**
     * Waits until the element with that id has {@code data-ready="true"}.
     *
     * @param id element id
     * @param timeout how long at most
     * @return the element
     * @throws org.openqa.selenium.TimeoutException with the page's error banner text in the message
     */
    public WebElement awaitReady(String id, Duration timeout) {
        try {
            return new WebDriverWait(driver, timeout).until(d -> {
                WebElement e = d.findElement(By.id(id));
                return "true".equals(e.getDomAttribute("data-ready")) ? e : null;
            });
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new org.openqa.selenium.TimeoutException("#" + id + " not ready after " + timeout + "; banner: '"
                    + driver.findElement(By.id("banner")).getText() + "'; console: " + consoleLines(), e);
        }
    }

    /**
     * @param id element id
     * @return its {@code data-points} attribute (non-zero values the chart drew)
     */
    public int points(String id) {
        String p = driver.findElement(By.id(id)).getDomAttribute("data-points");
        return p == null ? -1 : Integer.parseInt(p);
    }

    /** @return the browser console's entries since the last call (Chrome hands each entry out once). */
    public List<LogEntry> consoleEntries() {
        return driver.manage().logs().get(LogType.BROWSER).getAll();
    }

    private String consoleLines() {
        return consoleEntries().stream().map(e -> e.getLevel() + " " + e.getMessage()).toList().toString();
    }

    /**
     * Runs JavaScript in the page.
     *
     * @param script the script body ({@code return ...} for a value)
     * @param args its arguments
     * @return what it returned
     */
    public Object js(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    /**
     * Saves a PNG of the window.
     *
     * @param file where
     * @throws java.io.IOException if it cannot be written
     */
    public void screenshot(Path file) throws java.io.IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    }

    @Override
    public void close() {
        driver.quit();
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }
}
