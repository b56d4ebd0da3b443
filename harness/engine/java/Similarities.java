package harness;

import io.anserini.search.similarity.AccurateBM25Similarity;
import org.apache.lucene.search.similarities.AfterEffect;
import org.apache.lucene.search.similarities.AfterEffectB;
import org.apache.lucene.search.similarities.AfterEffectL;
import org.apache.lucene.search.similarities.AxiomaticF1EXP;
import org.apache.lucene.search.similarities.AxiomaticF1LOG;
import org.apache.lucene.search.similarities.AxiomaticF2EXP;
import org.apache.lucene.search.similarities.AxiomaticF2LOG;
import org.apache.lucene.search.similarities.AxiomaticF3EXP;
import org.apache.lucene.search.similarities.AxiomaticF3LOG;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.BasicModel;
import org.apache.lucene.search.similarities.BasicModelG;
import org.apache.lucene.search.similarities.BasicModelIF;
import org.apache.lucene.search.similarities.BasicModelIn;
import org.apache.lucene.search.similarities.BasicModelIne;
import org.apache.lucene.search.similarities.ClassicSimilarity;
import org.apache.lucene.search.similarities.DFISimilarity;
import org.apache.lucene.search.similarities.DFRSimilarity;
import org.apache.lucene.search.similarities.Distribution;
import org.apache.lucene.search.similarities.DistributionLL;
import org.apache.lucene.search.similarities.DistributionSPL;
import org.apache.lucene.search.similarities.IBSimilarity;
import org.apache.lucene.search.similarities.Independence;
import org.apache.lucene.search.similarities.IndependenceChiSquared;
import org.apache.lucene.search.similarities.IndependenceSaturated;
import org.apache.lucene.search.similarities.IndependenceStandardized;
import org.apache.lucene.search.similarities.IndriDirichletSimilarity;
import org.apache.lucene.search.similarities.LMDirichletSimilarity;
import org.apache.lucene.search.similarities.LMJelinekMercerSimilarity;
import org.apache.lucene.search.similarities.Lambda;
import org.apache.lucene.search.similarities.LambdaDF;
import org.apache.lucene.search.similarities.LambdaTTF;
import org.apache.lucene.search.similarities.Normalization;
import org.apache.lucene.search.similarities.NormalizationH1;
import org.apache.lucene.search.similarities.NormalizationH2;
import org.apache.lucene.search.similarities.NormalizationH3;
import org.apache.lucene.search.similarities.NormalizationZ;
import org.apache.lucene.search.similarities.Similarity;

/**
 * The Lucene similarities of the harness's models (harness.specs.models names each factory):
 * Lucene's and Anserini's classes, built with the parameters each takes.
 */
public final class Similarities {
  private Similarities() {}

  public static Similarity bm25(float k1, float b) { return new BM25Similarity(k1, b); }

  public static Similarity dirichlet(float mu) { return new LMDirichletSimilarity(mu); }

  public static Similarity jelinekMercer(float lambda) { return new LMJelinekMercerSimilarity(lambda); }

  public static Similarity accurateBm25(float k1, float b) { return new AccurateBM25Similarity(k1, b); }

  public static Similarity tfidf() { return new ClassicSimilarity(); }

  /**
   * Indri's Dirichlet smoothing with Indri's collection model, P(t|C) = ctf / |C| (Lucene's
   * IndriDirichletSimilarity(mu) alone would use LMSimilarity's default model, (ctf + 1) / (|C| + 1)).
   */
  public static Similarity indri(float mu) {
    return new IndriDirichletSimilarity(new IndriDirichletSimilarity.IndriCollectionModel(), mu);
  }

  /** Lucene DFRSimilarity; basic model g|if|in|ine, after-effect b|l, normalisation as {@link #normalization}. */
  public static Similarity dfr(String basicModel, String afterEffect, String norm, float param) {
    BasicModel m = switch (basicModel) {
      case "g" -> new BasicModelG();
      case "if" -> new BasicModelIF();
      case "in" -> new BasicModelIn();
      case "ine" -> new BasicModelIne();
      default -> throw new IllegalArgumentException("basic model " + basicModel);
    };
    AfterEffect a = switch (afterEffect) {
      case "b" -> new AfterEffectB();
      case "l" -> new AfterEffectL();
      default -> throw new IllegalArgumentException("after-effect " + afterEffect);
    };
    return new DFRSimilarity(m, a, normalization(norm, param));
  }

  /** Lucene IBSimilarity; distribution ll|spl, lambda df|ttf. */
  public static Similarity ib(String distribution, String lambda, String norm, float param) {
    Distribution d = switch (distribution) {
      case "ll" -> new DistributionLL();
      case "spl" -> new DistributionSPL();
      default -> throw new IllegalArgumentException("distribution " + distribution);
    };
    Lambda l = switch (lambda) {
      case "df" -> new LambdaDF();
      case "ttf" -> new LambdaTTF();
      default -> throw new IllegalArgumentException("lambda " + lambda);
    };
    return new IBSimilarity(d, l, normalization(norm, param));
  }

  /** h1(c), h2(c), h3(mu), z(z) or none (param ignored). */
  static Normalization normalization(String name, float param) {
    return switch (name) {
      case "h1" -> new NormalizationH1(param);
      case "h2" -> new NormalizationH2(param);
      case "h3" -> new NormalizationH3(param);
      case "z" -> new NormalizationZ(param);
      case "none" -> new Normalization.NoNormalization();
      default -> throw new IllegalArgumentException("normalization " + name);
    };
  }

  /** Lucene DFISimilarity with the independence measure standardized|saturated|chisquared. */
  public static Similarity dfi(String measure) {
    Independence i = switch (measure) {
      case "standardized" -> new IndependenceStandardized();
      case "saturated" -> new IndependenceSaturated();
      case "chisquared" -> new IndependenceChiSquared();
      default -> throw new IllegalArgumentException("independence measure " + measure);
    };
    return new DFISimilarity(i);
  }

  /** Lucene's axiomatic functions, each with the arguments it takes. */
  public static Similarity axiomatic(String function, float s, float k, int queryLen) {
    return switch (function) {
      case "f1exp" -> new AxiomaticF1EXP(s, k);
      case "f1log" -> new AxiomaticF1LOG(s);
      case "f2exp" -> new AxiomaticF2EXP(s, k);
      case "f2log" -> new AxiomaticF2LOG(s);
      case "f3exp" -> new AxiomaticF3EXP(s, queryLen, k);
      case "f3log" -> new AxiomaticF3LOG(s, queryLen);
      default -> throw new IllegalArgumentException("axiomatic function " + function);
    };
  }
}
